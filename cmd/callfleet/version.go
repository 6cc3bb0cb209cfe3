package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=..."; otherwise the module version.
var version = ""

func init() {
	register("version", "print the version", func(st *state, args []string) int {
		fs := st.newFlags("version", "")
		if code, ok := parse(fs, args); !ok {
			return code
		}
		v := version
		if v == "" {
			if bi, ok := debug.ReadBuildInfo(); ok {
				v = bi.Main.Version
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" && len(s.Value) >= 12 {
						v += " " + s.Value[:12]
					}
				}
			}
		}
		fmt.Fprintf(st.stdout, "callfleet %s %s/%s %s\n", v, runtime.GOOS, runtime.GOARCH, runtime.Version())
		return exitOK
	})
}
