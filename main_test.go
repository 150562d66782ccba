package robotsext

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain runs the package's parallel tests 4 × GOMAXPROCS at a time,
// unless -parallel is given on the command line. Most of them wait on
// loopback servers and on the timers of the pace they test, not on a CPU:
// at go test's default of GOMAXPROCS, tests that wait real time stand in
// line while the CPUs idle (on a 2-CPU machine the package took 38 s
// under -race, 20–22 s with this).
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0))); err != nil {
			panic(err) // the testing package renamed its flag: fail loudly rather than run slowly
		}
	}
	os.Exit(m.Run())
}
