package deps

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const root = "../.."

// Programs every machine has without `make deps`: the Go toolchain the README asks for, and what a
// minimal Debian root (debootstrap --variant=minbase) carries.
var given = map[string]bool{"go": true, "bash": true, "sh": true, "kill": true, "sleep": true, "true": true}

func load(t *testing.T) List {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "scripts", "deps.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestParse(t *testing.T) {
	l, err := Parse(strings.NewReader("# comment\n\nsox sox /usr/bin/sox pkg:opus\nflite\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Promise{{"sox", Program, "sox"}, {"sox", Path, "/usr/bin/sox"}, {"sox", Library, "opus"}}
	if strings.Join(l.Packages, ",") != "sox,flite" || len(l.Promises) != len(want) {
		t.Fatalf("got %+v", l)
	}
	for i, p := range want {
		if l.Promises[i] != p {
			t.Errorf("promise %d = %+v, want %+v", i, l.Promises[i], p)
		}
	}
	if _, err := Parse(strings.NewReader("x pkg:\n")); err == nil {
		t.Error("an empty pkg: promise parsed")
	}
	if !l.CoversPath("/usr/bin/sox") || l.CoversPath("/usr/bin/soxx") || !l.CoversPath("/usr/bin") {
		t.Error("CoversPath")
	}
}

// TestEveryPromiseHolds fails on a machine where `make deps` did not provide what it promises, so a
// missing install step shows here, by name, instead of as some other test's odd failure.
func TestEveryPromiseHolds(t *testing.T) {
	for _, p := range load(t).Promises {
		var err error
		switch p.Kind {
		case Program:
			_, err = exec.LookPath(p.Name)
		case Path:
			_, err = os.Stat(p.Name)
		case Library:
			err = exec.Command("pkg-config", "--exists", p.Name).Run()
		}
		if err != nil {
			t.Errorf("%s (from Debian package %s) is missing: %v; run `make deps`", p.Name, p.Package, err)
		}
	}
}

// TestCodeNeedsOnlyPromises scans every Go file for the programs it runs, the /usr paths it names
// and the C libraries cgo links, and fails on any that scripts/deps.txt does not promise.
func TestCodeNeedsOnlyPromises(t *testing.T) {
	l := load(t)
	found := scanModule(t)
	if len(found.programs) < 3 || len(found.libs) < 2 {
		t.Fatalf("the scan found only programs %v and libraries %v: it no longer sees exec calls or cgo", found.programs, found.libs)
	}
	for _, p := range unpromised(l, found) {
		t.Error(p)
	}
	for _, u := range found.programs {
		t.Logf("%s runs %s", u.where, u.name)
	}
}

// TestScanCatchesUnpromised feeds the scan a package that runs an unlisted program through a
// helper, names an unlisted path and links an unlisted library: each must be reported.
func TestScanCatchesUnpromised(t *testing.T) {
	const src = `package x
// #cgo pkg-config: opus nosuchlib
import "C"
import "os/exec"
const tool = "nosuchtool"
func need(name string) { exec.LookPath(name) }
func f() {
	need("helpertool")
	exec.Command(tool).Run()
	exec.CommandContext(nil, "/usr/bin/sox")
	_ = "/usr/share/nosuch/model"
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var s scan
	scanPackage(fset, []*ast.File{f}, &s)
	l, _ := Parse(strings.NewReader("sox sox\nlibopus-dev pkg:opus\n"))
	got := strings.Join(unpromised(l, s), "\n")
	for _, want := range []string{`"nosuchtool"`, `"helpertool"`, "/usr/share/nosuch/model", "nosuchlib"} {
		if !strings.Contains(got, want) {
			t.Errorf("the scan missed %s; it reported:\n%s", want, got)
		}
	}
	for _, promised := range []string{`"sox"`, "pkg:opus "} {
		if strings.Contains(got, promised) {
			t.Errorf("the scan reported promised %s:\n%s", promised, got)
		}
	}
}

func unpromised(l List, s scan) []string {
	progs, libs := l.Programs(), l.Libraries()
	var out []string
	for _, u := range s.programs {
		if !progs[u.name] && !given[u.name] {
			out = append(out, u.where+" runs "+strconv.Quote(u.name)+", which no package in scripts/deps.txt promises")
		}
	}
	for _, u := range s.paths {
		if !l.CoversPath(u.name) {
			out = append(out, u.where+" names "+u.name+", which no package in scripts/deps.txt promises")
		}
	}
	for _, u := range s.libs {
		if !libs[u.name] {
			out = append(out, u.where+" links C library "+u.name+", which no package in scripts/deps.txt promises as pkg:"+u.name)
		}
	}
	return out
}

// Tools a minimal Debian root lacks that a shell script might call.
var notInMinbase = []string{"curl", "wget", "jq", "taskset", "tmux", "sox", "flite", "espeak-ng", "python3", "nc", "perf", "hyperfine", "chromium", "pkg-config"}

func TestScriptsNeedOnlyPromises(t *testing.T) {
	progs := load(t).Programs()
	files, _ := filepath.Glob(filepath.Join(root, "scripts", "*.sh"))
	files = append(files, filepath.Join(root, "Makefile"), filepath.Join(root, ".ci", "run"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range notInMinbase {
			re := regexp.MustCompile(`(^|[\s;|&(` + "`" + `])` + regexp.QuoteMeta(tool) + `(\s|$)`)
			for i, line := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "#") || !re.MatchString(line) {
					continue
				}
				if !progs[tool] {
					t.Errorf("%s:%d runs %s, which no package in scripts/deps.txt promises", f, i+1, tool)
				}
			}
		}
	}
}

type use struct{ name, where string }

type scan struct{ programs, paths, libs []use }

var (
	cgoPkgConfig = regexp.MustCompile(`#cgo\s+(?:[^:]*\s)?pkg-config:\s*(.+)`)
	cgoInclude   = regexp.MustCompile(`-I(/\S+)`)
)

func scanModule(t *testing.T) scan {
	t.Helper()
	var s scan
	fset := token.NewFileSet()
	pkgs := map[string][]*ast.File{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// this package's own test names made-up programs and paths on purpose
		if d.IsDir() && path != root && (d.Name() == "testdata" || d.Name() == "vendor" || strings.HasPrefix(d.Name(), ".") || path == filepath.Join(root, "internal", "deps")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		pkgs[filepath.Dir(path)] = append(pkgs[filepath.Dir(path)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, files := range pkgs {
		scanPackage(fset, files, &s)
	}
	sort.Slice(s.programs, func(i, j int) bool { return s.programs[i].where < s.programs[j].where })
	return s
}

// scanPackage finds exec.Command/CommandContext/LookPath programs that are string literals, string
// constants, or a parameter of a package function called with literals (a needTool(t, "sox") helper);
// the /usr paths string literals name; and the pkg-config libraries and -I folders of #cgo lines.
func scanPackage(fset *token.FileSet, files []*ast.File, s *scan) {
	consts := map[string]string{}
	for _, f := range files {
		scanCgo(fset, f, s)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if i < len(n.Values) {
						if v, ok := stringLit(n.Values[i]); ok {
							consts[name.Name] = v
						}
					}
				}
			case *ast.BasicLit:
				if v, ok := stringLit(n); ok && strings.HasPrefix(v, "/usr/") {
					s.paths = append(s.paths, use{v, fset.Position(n.Pos()).String()})
				}
			}
			return true
		})
	}
	resolve := func(e ast.Expr) (string, bool) {
		if v, ok := stringLit(e); ok {
			return v, true
		}
		if id, ok := e.(*ast.Ident); ok {
			v, ok := consts[id.Name]
			return v, ok
		}
		return "", false
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				arg := execProgramArg(call)
				if arg == nil {
					return true
				}
				where := fset.Position(call.Pos()).String()
				if v, ok := resolve(arg); ok {
					s.programs = append(s.programs, use{filepath.Base(v), where})
					return true
				}
				// a parameter of this function: resolve it at the function's call sites
				if id, ok := arg.(*ast.Ident); ok && fd.Recv == nil {
					if idx := paramIndex(fd, id.Name); idx >= 0 {
						for _, v := range callSiteArgs(files, fd.Name.Name, idx, resolve) {
							s.programs = append(s.programs, use{filepath.Base(v), where + " via " + fd.Name.Name})
						}
					}
				}
				return true
			})
		}
	}
}

func scanCgo(fset *token.FileSet, f *ast.File, s *scan) {
	for _, cg := range f.Comments {
		for _, line := range strings.Split(cg.Text(), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "#cgo") {
				continue
			}
			where := fset.Position(cg.Pos()).String()
			if m := cgoPkgConfig.FindStringSubmatch(line); m != nil {
				for _, lib := range strings.Fields(m[1]) {
					s.libs = append(s.libs, use{lib, where})
				}
			}
			for _, m := range cgoInclude.FindAllStringSubmatch(line, -1) {
				s.paths = append(s.paths, use{m[1], where})
			}
		}
	}
}

// execProgramArg is the program argument of an os/exec call, or nil.
func execProgramArg(call *ast.CallExpr) ast.Expr {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "exec" {
		return nil
	}
	switch sel.Sel.Name {
	case "Command", "LookPath":
		if len(call.Args) > 0 {
			return call.Args[0]
		}
	case "CommandContext":
		if len(call.Args) > 1 {
			return call.Args[1]
		}
	}
	return nil
}

func paramIndex(fd *ast.FuncDecl, name string) int {
	i := 0
	for _, field := range fd.Type.Params.List {
		for _, n := range field.Names {
			if n.Name == name {
				return i
			}
			i++
		}
	}
	return -1
}

func callSiteArgs(files []*ast.File, fn string, idx int, resolve func(ast.Expr) (string, bool)) []string {
	var out []string
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) <= idx {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == fn {
				if v, ok := resolve(call.Args[idx]); ok {
					out = append(out, v)
				}
			}
			return true
		})
	}
	return out
}

func stringLit(e ast.Expr) (string, bool) {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		return "", false
	}
	v, err := strconv.Unquote(bl.Value)
	return v, err == nil
}
