package client

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// MadeParams is what a gateway's raw upstream record says was really made:
// new-api keeps the upstream's own task record beside its task, and the
// upstream reports the clip it generated there, whatever the request asked
// for. Empty strings and a nil GenerateAudio mean the record does not say.
type MadeParams struct {
	Ratio      string
	Resolution string
	// Seconds is the clip's length as the submission's seconds would spell it
	// (a string of digits).
	Seconds       string
	GenerateAudio *bool
}

// taskWire is one task object: the canonical flat shape, or new-api's task
// record, whose members are a superset of the names the flat shape uses.
type taskWire struct {
	TaskID        string          `json:"task_id"`
	ID            string          `json:"id"`
	Status        string          `json:"status"`
	URL           string          `json:"url"`
	Format        string          `json:"format"`
	Metadata      *Metadata       `json:"metadata"`
	Error         json.RawMessage `json:"error"`
	FailReason    string          `json:"fail_reason"`
	FailureReason string          `json:"failure_reason"`
	Message       string          `json:"message"`
	// Upstream is new-api's data.data: the upstream's own record of the task.
	Upstream json.RawMessage `json:"data"`
	Progress json.RawMessage `json:"progress"`
}

// upstreamRecord is the part of an upstream's raw task record that says what was
// made and why a task failed, as new-api keeps it for each video channel (see
// CONTRIBUTING.md, "Task shapes"): ByteDance Ark's behind the Doubao channel,
// Kling's, and OpenAI's video object behind the Sora channel. It is read member
// by member, leniently: it is the upstream's, not the gateway's, and an odd
// member must not make the whole task unreadable.
type upstreamRecord struct {
	videoURL string
	// err is the record's error object; Kling's reason is its message.
	err  serviceError
	made *MadeParams
}

// taskContext says which call a task answer came from: on a submission a task ID
// is all that matters (a missing or odd status reads as submitted), and on a read
// the ID asked for stands in for one the answer leaves out.
type taskContext struct {
	submission bool
	askedID    string
}

// decodeTask is the one place that reads a task from a 2xx answer, in every shape
// CONTRIBUTING.md describes ("Task shapes"): the flat canonical object, the same
// object in a {"code","message","data"} envelope, and new-api's task record inside
// its envelope. An answer it cannot place is an error that says what it got.
func decodeTask(data []byte, tc taskContext) (*Video, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, fmt.Errorf("the answer is not a task object: %s", snippet(data))
	}
	body := data
	if inner, ok, err := unwrapEnvelope(top); err != nil {
		return nil, fmt.Errorf("%w: %s", err, snippet(data))
	} else if ok {
		body = inner
	}
	var w taskWire
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&w); err != nil {
		return nil, fmt.Errorf("the task object is not the expected JSON (%w): %s", err, snippet(data))
	}
	if w.TaskID == "" {
		w.TaskID = w.ID
	}
	if w.TaskID == "" {
		w.TaskID = tc.askedID
	}
	if w.TaskID == "" {
		return nil, fmt.Errorf("the answer has no task_id (nor id); it has %s: %s", memberNames(body), snippet(data))
	}
	raw := strings.TrimSpace(w.Status)
	status := ParseStatus(raw)
	switch {
	case tc.submission && (raw == "" || status == StatusUnknown):
		// A task ID in hand is a task, whatever else the answer lacks: it was
		// just submitted.
		status = StatusSubmitted
	case raw == "":
		// A read without any status says nothing about what became of the task.
		return nil, fmt.Errorf("the service's task object has no status; it has %s: %s", memberNames(body), snippet(data))
	}
	up := readUpstream(w.Upstream)
	v := &Video{
		TaskID: w.TaskID, Status: status, RawStatus: cleanRawStatus(raw), URL: w.URL, Format: w.Format,
		Metadata: w.Metadata, Made: up.made,
	}
	v.Progress, v.HasProgress = readProgress(w.Progress)
	switch {
	case status == StatusSucceeded && v.URL == "":
		// new-api puts the clip's URL in fail_reason on success; its upstream's
		// record holds it too.
		for _, u := range []string{w.FailReason, up.videoURL} {
			if isHTTPURL(u) {
				v.URL = u
				break
			}
		}
	case status == StatusFailed || status.Gone():
		if !isHTTPURL(v.URL) {
			// new-api's answer for a Gemini (Veo) channel is the flat task, whose
			// url is the gateway's fail_reason: on a task without a clip, text.
			w.FailReason, v.URL = cmp.Or(w.FailReason, v.URL), ""
		}
		v.FailureReason = w.failureReason(up)
		if status.Gone() {
			v.FailureReason = strings.TrimSuffix(fmt.Sprintf("the service reports the task as %q: %s", v.RawStatus, v.FailureReason), ": ")
		}
	}
	return v, nil
}

// unwrapEnvelope returns the task inside a {"code","message","data":{...}}
// envelope. An object that names a task itself is not an envelope, whatever
// else it holds; an envelope without a task object is an error quoting its code
// and message.
func unwrapEnvelope(top map[string]json.RawMessage) (json.RawMessage, bool, error) {
	_, hasCode := top["code"]
	if !hasCode || top["task_id"] != nil || top["id"] != nil || top["status"] != nil {
		return nil, false, nil
	}
	data := bytes.TrimSpace(top["data"])
	if len(data) > 0 && data[0] == '{' {
		return data, true, nil
	}
	var code any
	_ = json.Unmarshal(top["code"], &code)
	var message string
	_ = json.Unmarshal(top["message"], &message)
	return nil, false, fmt.Errorf("the answer is an envelope without a task (code %s, message %q)",
		truncate(fmt.Sprint(code), 64), truncate(message, 200))
}

// memberNames lists the members of a JSON object, for an error that says what an
// answer held without quoting values at length.
func memberNames(data []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil || len(m) == 0 {
		return "no members"
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, strconv.Quote(truncate(k, 40)))
	}
	slices.Sort(names)
	if len(names) > 12 {
		names = append(names[:12], fmt.Sprintf("and %d more", len(names)-12))
	}
	return "the members " + strings.Join(names, ", ")
}

func readUpstream(raw json.RawMessage) upstreamRecord {
	var up upstreamRecord
	var rec map[string]json.RawMessage
	if json.Unmarshal(raw, &rec) != nil {
		return up
	}
	var content struct {
		VideoURL string `json:"video_url"`
	}
	if json.Unmarshal(rec["content"], &content) == nil {
		up.videoURL = content.VideoURL
	}
	// Ark's and OpenAI's error object; a Gemini operation's too.
	if e, ok := readServiceError(rec["error"]); ok && strings.TrimSpace(string(e.Message)) != "" {
		up.err = e
	}
	made := MadeParams{}
	_ = json.Unmarshal(rec["ratio"], &made.Ratio)
	_ = json.Unmarshal(rec["resolution"], &made.Resolution)
	// Ark says duration (a number); OpenAI's video object seconds (digits).
	made.Seconds = cmp.Or(readSeconds(rec["duration"]), readSeconds(rec["seconds"]))
	var audio bool
	if json.Unmarshal(rec["generate_audio"], &audio) == nil && len(rec["generate_audio"]) > 0 {
		made.GenerateAudio = &audio
	}
	var size string
	if json.Unmarshal(rec["size"], &size) == nil {
		ratio, resolution := RatioAndResolutionOf(size)
		made.Ratio, made.Resolution = cmp.Or(made.Ratio, ratio), cmp.Or(made.Resolution, resolution)
	}
	readKling(rec["data"], &up, &made)
	if made != (MadeParams{}) {
		up.made = &made
	}
	return up
}

// readKling reads Kling's record, which nests its task in data: the clip and its
// length in task_result.videos, and a failed task's reason in task_status_msg.
// The record's top-level message is the query's own ("SUCCEED"), which new-api
// copies into fail_reason even for a failed task.
func readKling(raw json.RawMessage, up *upstreamRecord, made *MadeParams) {
	var k struct {
		TaskStatus    string `json:"task_status"`
		TaskStatusMsg string `json:"task_status_msg"`
		TaskResult    struct {
			Videos []struct {
				URL      string          `json:"url"`
				Duration json.RawMessage `json:"duration"`
			} `json:"videos"`
		} `json:"task_result"`
	}
	if json.Unmarshal(raw, &k) != nil {
		return
	}
	if videos := k.TaskResult.Videos; len(videos) > 0 {
		up.videoURL = cmp.Or(up.videoURL, videos[0].URL)
		made.Seconds = cmp.Or(made.Seconds, readSeconds(videos[0].Duration))
	}
	if ParseStatus(k.TaskStatus) == StatusFailed && strings.TrimSpace(k.TaskStatusMsg) != "" && up.err.Message == "" {
		up.err = serviceError{Message: looseText(k.TaskStatusMsg)}
	}
}

// readSeconds is a positive whole length (wholeSeconds) as the digits a
// submission's seconds carries, or "".
func readSeconds(raw json.RawMessage) string {
	if n, ok := wholeSeconds(raw); ok && n > 0 {
		return strconv.FormatInt(n, 10)
	}
	return ""
}

// readProgress reads a task's progress as a share from 0 to 1: a percentage,
// as a number (OpenAI's 0-100) or a string with or without "%" (new-api's
// "30%"). Anything else says nothing: progress only steers when to look.
func readProgress(raw json.RawMessage) (float64, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	pct, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil || !(pct >= 0 && pct <= 100) {
		return 0, false
	}
	return pct / 100, true
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// failureReason picks the explanation of a task that ended without a clip
// (CONTRIBUTING.md, "Failure detail").
func (w *taskWire) failureReason(up upstreamRecord) string {
	obj, _ := readServiceError(w.Error)
	if obj.Message != "" {
		return obj.text()
	}
	var s string
	if json.Unmarshal(w.Error, &s) == nil && s != "" {
		return s
	}
	if up.err.Message != "" && !isStatusWord(string(up.err.Message)) {
		return up.err.text()
	}
	for _, s := range []string{w.FailReason, w.FailureReason, w.Message} {
		if s != "" && !isStatusWord(s) {
			return s
		}
	}
	// An error object without a message still names the failure by its type
	// and code (OpenAI's video error has a code that says it all).
	return obj.text()
}

// placeholderReasons are words gateways put where a reason belongs that say no
// more than the status: Kling's "SUCCEED" (the message of the query, which
// new-api copies into fail_reason) and new-api's own "task failed".
var placeholderReasons = []string{"succeed", "task_failed"}

// isStatusWord reports a would-be failure reason that is only a status word
// (Status's exact words, or a placeholder), which must never be shown as the
// reason: the diagnostic says that no reason was given instead.
func isStatusWord(s string) bool {
	word := strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(strings.TrimRight(s, "."))))
	_, ok := statusWords[word]
	return ok || slices.Contains(placeholderReasons, word)
}
