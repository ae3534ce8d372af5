package clip

import "context"

// Logger receives what the lifecycle logs; the provider hands it Terraform's
// logger, and a nil Logger logs nothing.
type Logger interface {
	Info(ctx context.Context, msg string, fields map[string]any)
	Warn(ctx context.Context, msg string, fields map[string]any)
}

func (l *Lifecycle) info(ctx context.Context, msg string, fields map[string]any) {
	if l.log != nil {
		l.log.Info(ctx, msg, fields)
	}
}

func (l *Lifecycle) warn(ctx context.Context, msg string, fields map[string]any) {
	if l.log != nil {
		l.log.Warn(ctx, msg, fields)
	}
}
