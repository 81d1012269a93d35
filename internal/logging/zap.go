// Package logging adapts zap to the Temporal SDK's logger interface so the
// worker, the SDK and our activities write one structured log.
package logging

import (
	"errors"
	"fmt"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/log"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Zap implements log.Logger and log.WithLogger over a *zap.Logger.
type Zap struct{ z *zap.Logger }

var (
	_ log.Logger     = (*Zap)(nil)
	_ log.WithLogger = (*Zap)(nil)
)

// NewZap wraps z for the SDK.
func NewZap(z *zap.Logger) *Zap { return &Zap{z: z.WithOptions(zap.AddCallerSkip(1))} }

// New builds a production JSON logger at the given level ("debug", "info",
// "warn", "error"); development gives a console encoder.
func New(level string, development bool) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("log level %q: allowed debug, info, warn, error", level)
	}
	cfg := zap.NewProductionConfig()
	if development {
		cfg = zap.NewDevelopmentConfig()
	}
	cfg.Level = zap.NewAtomicLevelAt(lvl)
	return cfg.Build()
}

func fields(keyvals []any) []zap.Field {
	out := make([]zap.Field, 0, len(keyvals)/2+1)
	for i := 0; i < len(keyvals); i += 2 {
		if i+1 == len(keyvals) {
			out = append(out, zap.Any("_extra", keyvals[i]))
			break
		}
		k, ok := keyvals[i].(string)
		if !ok {
			k = fmt.Sprint(keyvals[i])
		}
		out = append(out, zap.Any(k, keyvals[i+1]))
	}
	return out
}

func (l *Zap) Debug(msg string, keyvals ...any) { l.z.Debug(msg, fields(keyvals)...) }
func (l *Zap) Info(msg string, keyvals ...any)  { l.z.Info(msg, fields(keyvals)...) }
func (l *Zap) Warn(msg string, keyvals ...any) {
	if msg == heartbeatFailed && abandoned(keyvals) {
		l.z.Debug(msg, fields(keyvals)...)
		return
	}
	l.z.Warn(msg, fields(keyvals)...)
}
func (l *Zap) Error(msg string, keyvals ...any) { l.z.Error(msg, fields(keyvals)...) }

// heartbeatFailed is the SDK's warning for a heartbeat the server refused.
// When the server no longer knows the activity (NotFound: its workflow has
// completed, or stopped waiting for it), the activity was abandoned on
// purpose — the reimage watch once the node is back — and the refusal is
// how it learns to stop: expected, so logged at debug.
const heartbeatFailed = "RecordActivityHeartbeat with error"

func abandoned(keyvals []any) bool {
	for i := 1; i < len(keyvals); i += 2 {
		if err, ok := keyvals[i].(error); ok {
			var nf *serviceerror.NotFound
			return errors.As(err, &nf)
		}
	}
	return false
}

// With returns a logger that adds keyvals to every line.
func (l *Zap) With(keyvals ...any) log.Logger { return &Zap{z: l.z.With(fields(keyvals)...)} }
