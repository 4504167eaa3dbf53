package main

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag holding a size in bytes, written with an optional
// binary suffix: 1048576, 512K, 64M, 16G, 1T.
type byteSize int64

func (b *byteSize) String() string {
	if b == nil || *b == 0 {
		return ""
	}
	return strconv.FormatInt(int64(*b), 10)
}

func (b *byteSize) Set(s string) error {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for i, suf := range []string{"K", "M", "G", "T"} {
		if strings.HasSuffix(t, suf) || strings.HasSuffix(t, suf+"B") || strings.HasSuffix(t, suf+"IB") {
			t = strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I"), suf)
			mult = int64(1) << (10 * (i + 1))
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v <= 0 {
		return fmt.Errorf("%q is not a positive size (bytes, or with K, M, G or T)", s)
	}
	if v > (1<<62)/mult {
		return fmt.Errorf("%q is too large", s)
	}
	*b = byteSize(v * mult)
	return nil
}
