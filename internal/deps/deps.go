// Package deps reads scripts/deps.txt, the list of Debian packages `make deps` installs and what
// each promises (programs, files, C libraries), so a test can hold the code to it: a program the
// code runs that no package promises works on the machine that installed it by hand and fails on
// a fresh one.
package deps

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Kind is what a promise is.
type Kind int

const (
	KindUnknown Kind = iota
	Program          // run by name from PATH
	Path             // an absolute file or folder
	Library          // a C library found through pkg-config
)

// Promise is one thing a package provides that callfleet needs.
type Promise struct {
	Package string
	Kind    Kind
	Name    string // program name, absolute path, or pkg-config name
}

// List is the parsed deps.txt.
type List struct {
	Packages []string
	Promises []Promise
}

// Parse reads the deps.txt format: a package a line, then its promises; # starts a comment line.
func Parse(r io.Reader) (List, error) {
	var l List
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		l.Packages = append(l.Packages, f[0])
		for _, w := range f[1:] {
			p := Promise{Package: f[0], Kind: Program, Name: w}
			switch {
			case strings.HasPrefix(w, "/"):
				p.Kind = Path
			case strings.HasPrefix(w, "pkg:"):
				p.Kind, p.Name = Library, strings.TrimPrefix(w, "pkg:")
			}
			if p.Name == "" {
				return List{}, fmt.Errorf("deps line %d: empty promise %q", n, w)
			}
			l.Promises = append(l.Promises, p)
		}
	}
	if err := sc.Err(); err != nil {
		return List{}, fmt.Errorf("read deps list: %w", err)
	}
	return l, nil
}

// Programs are the promised program names.
func (l List) Programs() map[string]bool { return l.names(Program) }

// Libraries are the promised pkg-config names.
func (l List) Libraries() map[string]bool { return l.names(Library) }

func (l List) names(k Kind) map[string]bool {
	m := map[string]bool{}
	for _, p := range l.Promises {
		if p.Kind == k {
			m[p.Name] = true
		}
	}
	return m
}

// CoversPath says whether path is a promised path or lies inside (or contains) one.
func (l List) CoversPath(path string) bool {
	for _, p := range l.Promises {
		if p.Kind != Path {
			continue
		}
		if path == p.Name || strings.HasPrefix(path, p.Name+"/") || strings.HasPrefix(p.Name, path+"/") {
			return true
		}
	}
	return false
}
