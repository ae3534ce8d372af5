package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// serviceError is the service's error object, {"message","type","code","param"},
// wherever an answer carries one: an error body, a failed task's error, and a
// gateway's upstream record (Ark's, OpenAI's video object, a Gemini operation).
// Every member is read leniently (see looseText): OpenAI's code is a string, a
// Gemini operation's a number, and an odd member must not make the rest
// unreadable.
type serviceError struct {
	Message looseText `json:"message"`
	Type    looseText `json:"type"`
	Code    looseText `json:"code"`
	Param   looseText `json:"param"`
}

// readServiceError reads raw as an error object; false when it is not a JSON
// object (a plain string, null, nothing).
func readServiceError(raw json.RawMessage) (serviceError, bool) {
	var e serviceError
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &e) != nil {
		return serviceError{}, false
	}
	return e, true
}

// text is the error as OpenAI's clients present it: the human-readable message
// first, then the machine-readable type and code in parentheses, each once and
// only where the message does not already say it. Without a message, the type
// and code alone; "" when the object says nothing.
func (e serviceError) text() string {
	msg := strings.TrimSpace(string(e.Message))
	var labels []string
	for _, l := range []looseText{e.Type, e.Code} {
		s := strings.TrimSpace(string(l))
		if s != "" && !strings.Contains(msg, s) && (len(labels) == 0 || labels[0] != s) {
			labels = append(labels, s)
		}
	}
	switch {
	case len(labels) == 0:
		return msg
	case msg == "":
		return strings.Join(labels, ", ")
	}
	return fmt.Sprintf("%s (%s)", msg, strings.Join(labels, ", "))
}

// looseText is a member that should be a string, read whatever it is: a number
// as its digits (a numeric code is a code too), null as "", and anything else
// (an object, a list, true) as its compact JSON, so that nothing a service
// says is lost and no odd member fails the object it is in.
type looseText string

func (t *looseText) UnmarshalJSON(data []byte) error {
	var s string
	switch {
	case json.Unmarshal(data, &s) == nil:
		*t = looseText(s)
	case string(bytes.TrimSpace(data)) == "null":
		*t = ""
	default:
		// The object around it was valid JSON, so this member is too.
		var b bytes.Buffer
		_ = json.Compact(&b, data)
		*t = looseText(truncate(b.String(), 200))
	}
	return nil
}
