package client

import (
	"errors"
	"strings"
	"time"
	"unicode"
)

// Reading a failed call for its caller: what the service said, which request
// parameter it blamed, and how many attempts the call took.

// ServiceMessage is the service's own message in err, or err's text when the
// service gave none.
func ServiceMessage(err error) string {
	if apiErr, ok := asAPIError(err); ok && apiErr.Message != "" {
		return apiErr.Message
	}
	return err.Error()
}

// BlamedParams names the request parameters that a rejected request concerns,
// surest first: the one the service named (OpenAI-style "param"), then, as a
// guess, the request member that a word of its message names ("aspect ratio"
// blames metadata.ratio). Services word their errors freely, so a caller
// should take the first that it can tell apart. None when err is no APIError.
func BlamedParams(err error) []string {
	apiErr, ok := asAPIError(err)
	if !ok {
		return nil
	}
	var params []string
	if apiErr.Param != "" {
		params = append(params, apiErr.Param)
	}
	text := strings.ToLower(apiErr.Message)
	for _, w := range blamingWords {
		if startsWord(text, w.word) {
			return append(params, w.param)
		}
	}
	return params
}

// blamingWords are the words of an error message that name a request member,
// in the order they are looked for.
var blamingWords = []struct{ word, param string }{
	{"seconds", "seconds"}, {"resolution", ParamResolution}, {"ratio", ParamRatio}, {"callback", ParamCallbackURL},
	{"image", ParamContent + "[]." + ContentImage}, {"video_url", ParamContent + "[]." + ContentVideo},
	{"audio", ParamContent + "[]." + ContentAudio}, {"prompt", "prompt"}, {"model", "model"},
}

// startsWord reports whether word starts a word of text: "ratio" in "aspect
// ratio" or "ratios", never inside "moderation" (an upstream's "blocked by our
// moderation system" is about the prompt, not the ratio).
func startsWord(text, word string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		at := i + j
		if at == 0 || !unicode.IsLetter(rune(text[at-1])) {
			return true
		}
		i = at + 1
	}
}

// Attempts is how many attempts a failed call made, retries included, and how
// long they took: one, for an error that does not count them.
func Attempts(err error) (int, time.Duration) {
	if apiErr, ok := asAPIError(err); ok {
		return apiErr.Attempts, apiErr.Elapsed
	}
	var tErr *TransportError
	if errors.As(err, &tErr) {
		return tErr.Attempts, tErr.Elapsed
	}
	return 1, 0
}
