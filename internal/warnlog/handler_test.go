package warnlog

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestDefault (not parallel: it replaces slog.Default): Warn and Error
// reach the default logger as it is when they are logged, with the
// attributes and groups added before; Info and Debug do not, even when
// the default logger takes them.
func TestDefault(t *testing.T) {
	old := slog.Default()
	t.Cleanup(func() { slog.SetDefault(old) })
	var first, second bytes.Buffer
	all := &slog.HandlerOptions{Level: slog.LevelDebug}
	slog.SetDefault(slog.New(slog.NewTextHandler(&first, all)))

	l := slog.New(Default{})
	derived := l.With("k", "v").WithGroup("g")
	l.Debug("debug")
	l.Info("info")
	l.Warn("warn1")
	derived.Info("info2", "a", 1)
	derived.Error("error1", "a", 1)
	slog.SetDefault(slog.New(slog.NewTextHandler(&second, all)))
	l.Warn("warn2")

	got := first.String()
	for _, want := range []string{"msg=warn1", "msg=error1 k=v g.a=1"} {
		if !strings.Contains(got, want) {
			t.Errorf("the default logger got %q, want a record with %q", got, want)
		}
	}
	for _, not := range []string{"debug", "info"} {
		if strings.Contains(got, "msg="+not) {
			t.Errorf("the default logger got a %s record: %q", not, got)
		}
	}
	if strings.Contains(got, "warn2") || !strings.Contains(second.String(), "msg=warn2") {
		t.Errorf("a record after slog.SetDefault went to %q, not %q", got, second.String())
	}
}
