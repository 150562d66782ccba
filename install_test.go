package robotsext

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeInstallation runs the README's Installation steps, as written,
// in a new module outside this repository, and fails when one of them
// fails (a newcomer once found that `go mod tidy` run before any import
// dropped the require, and `go doc` then said "cannot find package").
// The one step that needs GitHub, the clone, is replaced by a link to
// this checkout; everything else runs as a user would run it, through the
// Go module proxy. It runs the go command and needs the proxy (or a
// module cache holding the dependencies), so -short skips it.
func TestReadmeInstallation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command against the module proxy")
	}
	t.Parallel()
	md, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(md)
	start := strings.Index(section, "\n## Installation")
	if start < 0 {
		t.Fatal("README.md has no Installation section")
	}
	section = section[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var steps []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1) {
		for _, line := range strings.Split(m[1], "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				steps = append(steps, line)
			}
		}
	}
	if len(steps) < 3 {
		t.Fatalf("the Installation section has %d shell steps, want the clone, the require and a check", len(steps))
	}
	repo, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	if err := os.Mkdir(app, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(step string) {
		t.Helper()
		cmd := exec.Command("sh", "-c", step)
		cmd.Dir = app
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("step %q failed: %v\n%s", step, err, out)
		}
	}
	run("go mod init example.com/app")
	cloned := false
	for _, step := range steps {
		if strings.HasPrefix(step, "git clone ") {
			if !strings.HasSuffix(step, " ../robotsext") {
				t.Fatalf("the clone step %q does not clone into ../robotsext, where the replace points", step)
			}
			if err := os.Symlink(repo, filepath.Join(dir, "robotsext")); err != nil {
				t.Fatal(err)
			}
			cloned = true
			continue
		}
		if !cloned {
			t.Fatalf("step %q comes before the clone", step)
		}
		run(step)
	}
	for _, pkg := range []string{"github.com/robotsext/robotsext", "github.com/robotsext/robotsext/redisbackend"} {
		if !strings.Contains(section, "go doc "+pkg+" ") {
			t.Errorf("the Installation section never checks %s with go doc", pkg)
		}
	}
}
