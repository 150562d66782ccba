package warnlog

// This file is the handler: slog.Default()'s, at Warn and above.

import (
	"context"
	"log/slog"
)

// Default is a slog.Handler that passes records at Warn and above to
// slog.Default()'s handler as it is when each record comes. Its zero value
// is ready.
type Default struct{}

// Enabled reports whether l is Warn or above and slog.Default() takes it.
func (Default) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && slog.Default().Enabled(ctx, l)
}

// Handle passes r to slog.Default()'s handler.
func (Default) Handle(ctx context.Context, r slog.Record) error {
	return slog.Default().Handler().Handle(ctx, r)
}

// WithAttrs returns slog.Default()'s handler, as it is now, with as, still
// at Warn and above.
func (Default) WithAttrs(as []slog.Attr) slog.Handler {
	return warnOnly{slog.Default().Handler().WithAttrs(as)}
}

// WithGroup returns slog.Default()'s handler, as it is now, with the
// group, still at Warn and above.
func (Default) WithGroup(name string) slog.Handler {
	return warnOnly{slog.Default().Handler().WithGroup(name)}
}

// warnOnly passes records at Warn and above to h.
type warnOnly struct{ h slog.Handler }

func (w warnOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.h.Enabled(ctx, l)
}
func (w warnOnly) Handle(ctx context.Context, r slog.Record) error { return w.h.Handle(ctx, r) }
func (w warnOnly) WithAttrs(as []slog.Attr) slog.Handler           { return warnOnly{w.h.WithAttrs(as)} }
func (w warnOnly) WithGroup(name string) slog.Handler              { return warnOnly{w.h.WithGroup(name)} }
