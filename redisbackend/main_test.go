package redisbackend

import (
	"context"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestMain runs the test binary as a crawler worker when the
// multi-process tests start it so (see runWorker), and as the tests
// otherwise. The tests silence go-redis's logger: the outage tests make
// it log every failed dial, and they check the errors themselves.
// Workers keep it, for the stderr a failing multi-process test shows.
func TestMain(m *testing.M) {
	if os.Getenv(envWorker) != "" {
		os.Exit(runWorker())
	}
	redis.SetLogger(discardLogger{})
	os.Exit(m.Run())
}

// discardLogger drops go-redis's log lines.
type discardLogger struct{}

func (discardLogger) Printf(context.Context, string, ...any) {}
