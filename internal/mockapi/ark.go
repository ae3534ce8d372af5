package mockapi

// ArkTask is ByteDance Ark's task record, the upstream of new-api's Doubao
// video channel, as new-api v0.10.0 keeps it in its task's data.data: first
// the answer to the submission ({"id"} only), then each answer to new-api's
// status queries. The mock's new-api dialect renders it, and the gateway
// test's stand-in of Ark serves it, from this one definition.
type ArkTask struct {
	ID              string      `json:"id"`
	Model           string      `json:"model,omitempty"`
	Status          string      `json:"status,omitempty"`
	Content         *ArkContent `json:"content,omitempty"`
	Error           *ArkError   `json:"error,omitempty"`
	Usage           *ArkUsage   `json:"usage,omitempty"`
	CreatedAt       int64       `json:"created_at,omitempty"`
	UpdatedAt       int64       `json:"updated_at,omitempty"`
	Seed            int64       `json:"seed,omitempty"`
	Resolution      string      `json:"resolution,omitempty"`
	Ratio           string      `json:"ratio,omitempty"`
	Duration        int         `json:"duration,omitempty"`
	FramesPerSecond int         `json:"framespersecond,omitempty"`
}

// ArkContent is where a succeeded Ark task gives its clip.
type ArkContent struct {
	VideoURL string `json:"video_url"`
}

// ArkError is why an Ark task failed, and Ark's error body ({"error": ...})
// with Type set.
type ArkError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Type    string `json:"type,omitempty"`
}

// ArkUsage is what Ark counts a clip as: its frames' pixels, in tokens.
type ArkUsage struct {
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// ArkTokens is what Ark counts a clip of seconds at width x height and fps
// frames per second as.
func ArkTokens(width, height, fps, seconds int64) int64 {
	return width * height * fps * seconds / 1024
}
