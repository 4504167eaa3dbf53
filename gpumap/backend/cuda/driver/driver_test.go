package driver

import (
	"errors"
	"testing"
)

// Without a GPU, Load must fail with ErrUnavailable and a reason that
// names the missing driver or device; with one, Devices lists it.
func TestLoadReportsWhy(t *testing.T) {
	err := Load()
	if err != nil {
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Load error does not wrap ErrUnavailable: %v", err)
		}
		t.Skipf("no usable GPU here: %v", err)
	}
	devs, err := Devices()
	if err != nil || len(devs) == 0 {
		t.Fatalf("driver loaded but no devices: %v", err)
	}
	t.Logf("GPU 0: %s, compute %d.%d, %d SMs, %d MiB", devs[0].Name, devs[0].Major, devs[0].Minor, devs[0].SMs, devs[0].TotalMem>>20)
}

func TestArgSizes(t *testing.T) {
	if I32(-1).n != 4 || I64(1).n != 8 || P(0xdead).n != 8 || F64(1.5).n != 8 {
		t.Fatal("argument sizes")
	}
	a := I32(0x01020304)
	if a.b[0] != 4 || a.b[3] != 1 {
		t.Fatal("little-endian packing")
	}
}
