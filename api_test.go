package robotsext

import (
	"flag"
	"go/importer"
	"go/token"
	"go/types"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// publicPackages are the public packages of this module: every exported
// name of theirs is API. The nested modules (redisbackend, robotsprom,
// robotsotel) hold their own.
var publicPackages = []string{
	"github.com/robotsext/robotsext",
	"github.com/robotsext/robotsext/backend",
	"github.com/robotsext/robotsext/backend/backendtest",
	"github.com/robotsext/robotsext/cacheresult",
	"github.com/robotsext/robotsext/directive",
	"github.com/robotsext/robotsext/metrics",
	"github.com/robotsext/robotsext/sitemap",
	"github.com/robotsext/robotsext/statusclass",
	"github.com/robotsext/robotsext/usage",
	"github.com/robotsext/robotsext/webbotauth",
}

// updateAPI rewrites testdata/api.txt from the packages as they are: for
// a name added on purpose, never to drop one.
var updateAPI = flag.Bool("api.update", false, "rewrite testdata/api.txt with the exported names of today")

// typeCheck type-checks the public packages from source, once per test
// binary.
var typeCheck = sync.OnceValues(func() (map[string]*types.Package, error) {
	imp := importer.ForCompiler(token.NewFileSet(), "source", nil)
	pkgs := map[string]*types.Package{}
	for _, path := range publicPackages {
		p, err := imp.Import(path)
		if err != nil {
			return nil, err
		}
		pkgs[path] = p
	}
	return pkgs, nil
})

// publicAPI type-checks the public packages, or skips the test where
// their sources cannot be read.
func publicAPI(t *testing.T) map[string]*types.Package {
	t.Helper()
	if testing.Short() {
		t.Skip("type-checks the module from source")
	}
	pkgs, err := typeCheck()
	if err != nil {
		t.Skipf("cannot type-check the public packages from source: %v", err)
	}
	return pkgs
}

// exportedNames lists p's exported names as "path name" and, for each
// exported type, "path Type.Member" for each exported field and method
// (promoted ones included), as a user may write them.
func exportedNames(p *types.Package) []string {
	var out []string
	scope := p.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		out = append(out, p.Path()+" "+name)
		tn, ok := obj.(*types.TypeName)
		if !ok {
			continue
		}
		ms := types.NewMethodSet(types.NewPointer(tn.Type()))
		for i := range ms.Len() {
			if m := ms.At(i).Obj(); m.Exported() {
				out = append(out, p.Path()+" "+name+"."+m.Name())
			}
		}
		if st, ok := types.Unalias(tn.Type()).Underlying().(*types.Struct); ok {
			for i := range st.NumFields() {
				if f := st.Field(i); f.Exported() {
					out = append(out, p.Path()+" "+name+"."+f.Name())
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// resolves reports whether "Name" or "Type.Member" names something
// exported in p.
func resolves(p *types.Package, name string) bool {
	typ, member, isMember := strings.Cut(name, ".")
	obj := p.Scope().Lookup(typ)
	if obj == nil || !obj.Exported() {
		return false
	}
	if !isMember {
		return true
	}
	tn, ok := obj.(*types.TypeName)
	if !ok {
		return false
	}
	m, _, _ := types.LookupFieldOrMethod(tn.Type(), true, p, member)
	return m != nil && m.Exported()
}

// TestAPINamesResolve keeps every exported name of the public packages
// compiling: testdata/api.txt lists them as they were when a type moved
// to a public package of its own (the root's Directives, CacheResult,
// StatusClass, UsageSource), fields and methods included, and each must
// still resolve, through an alias or not. A name is dropped from the list
// only on purpose, with a major version.
func TestAPINamesResolve(t *testing.T) {
	pkgs := publicAPI(t)
	if *updateAPI {
		var all []string
		for _, path := range publicPackages {
			all = append(all, exportedNames(pkgs[path])...)
		}
		if err := os.WriteFile("testdata/api.txt", []byte(strings.Join(all, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("testdata/api.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 500 {
		t.Fatalf("testdata/api.txt lists %d names; the API has more", len(lines))
	}
	for _, line := range lines {
		path, name, ok := strings.Cut(line, " ")
		p := pkgs[path]
		if !ok || p == nil {
			t.Errorf("testdata/api.txt: %q is not of a public package", line)
			continue
		}
		if !resolves(p, name) {
			t.Errorf("%s.%s no longer resolves", p.Name(), name)
		}
	}
}

// TestNoInternalAliases keeps every public type readable where it is
// exported: no exported name of a public package is an alias of a type of
// an internal package, nor a constant or variable of such a type, since
// go doc, pkg.go.dev and editors show neither the fields nor the methods
// of a type a user cannot import. A type a public package needs from the
// machinery is defined in a public package (as directive.Directives is)
// and the internal package aliases it instead.
func TestNoInternalAliases(t *testing.T) {
	pkgs := publicAPI(t)
	internal := func(typ types.Type) (string, bool) {
		n, ok := types.Unalias(typ).(*types.Named)
		if !ok || n.Obj().Pkg() == nil {
			return "", false
		}
		path := n.Obj().Pkg().Path()
		return path + "." + n.Obj().Name(), strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal")
	}
	for _, path := range publicPackages {
		scope := pkgs[path].Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if !obj.Exported() {
				continue
			}
			switch obj := obj.(type) {
			case *types.TypeName:
				if target, bad := internal(obj.Type()); obj.IsAlias() && bad {
					t.Errorf("%s.%s is an alias of %s, whose fields and methods go doc cannot show", pkgs[path].Name(), name, target)
				}
			case *types.Const, *types.Var:
				if target, bad := internal(obj.Type()); bad {
					t.Errorf("%s.%s is of type %s, which a user cannot read", pkgs[path].Name(), name, target)
				}
			}
		}
	}
}
