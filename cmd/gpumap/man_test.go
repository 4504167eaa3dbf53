package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// gpumap.1 (installed by make install) documents every command of the
// usage text and every flag each command's -help lists.
func TestManPageCoversCommandsAndFlags(t *testing.T) {
	page, err := os.ReadFile("gpumap.1")
	if err != nil {
		t.Fatal(err)
	}
	man := string(page)
	_, usage, _ := runCLI("help")
	for _, m := range regexp.MustCompile(`(?m)^\s+gpumap (\w+)`).FindAllStringSubmatch(usage, -1) {
		cmd := m[1]
		if !strings.Contains(man, ".B gpumap "+cmd+"\n") {
			t.Errorf("gpumap.1 has no synopsis for %q (a line \".B gpumap %s\")", cmd, cmd)
		}
		_, _, help := runCLI(cmd, "-help")
		for _, f := range regexp.MustCompile(`(?m)^  -(\S+)`).FindAllStringSubmatch(help, -1) {
			if !strings.Contains(man, `\-`+strings.ReplaceAll(f[1], "-", `\-`)) {
				t.Errorf("gpumap.1 does not document %s -%s", cmd, f[1])
			}
		}
	}
}
