package providerconfig

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Logger routes the client's request logs, which the client has already
// freed of the API key, and the clip lifecycle's, to tflog.
type Logger struct{}

func (Logger) Debug(ctx context.Context, msg string, fields map[string]any) {
	tflog.Debug(ctx, msg, fields)
}

// Info and Warn route the clip lifecycle's logs (clip.Logger).
func (Logger) Info(ctx context.Context, msg string, fields map[string]any) {
	tflog.Info(ctx, msg, fields)
}

func (Logger) Warn(ctx context.Context, msg string, fields map[string]any) {
	tflog.Warn(ctx, msg, fields)
}
