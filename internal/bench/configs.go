package bench

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Every benchmark configuration has one resource address per clip, clip[i],
// whose prompt carries the index, so that Terraform's events, the mock's
// ledger and the peer's runs can be matched by index.

const benchModel = "videogen-1"

// Prompt is the prompt of clip i in a case: a readable tag, the index, and the
// mock's marker for the generation time of this task.
func Prompt(tag string, i int, generation time.Duration) string {
	return fmt.Sprintf("bench %s clip %d [mock:duration=%dms]", tag, i, generation.Milliseconds())
}

// promptIndex finds the clip index in a prompt made by Prompt for tag, or -1.
func promptIndex(prompt, tag string) int {
	rest, ok := strings.CutPrefix(prompt, "bench "+tag+" clip ")
	if !ok {
		return -1
	}
	digits, _, _ := strings.Cut(rest, " ")
	i, err := strconv.Atoi(digits)
	if err != nil || i < 0 {
		return -1
	}
	return i
}

func hclList(prompts []string) string {
	var b strings.Builder
	b.WriteString("[\n")
	for _, p := range prompts {
		fmt.Fprintf(&b, "    %q,\n", p)
	}
	b.WriteString("  ]")
	return b.String()
}

// Prompts are the prompts of one clip per generation time, for tag.
func Prompts(tag string, gens []time.Duration) []string {
	out := make([]string, len(gens))
	for i, g := range gens {
		out[i] = Prompt(tag, i, g)
	}
	return out
}

// ProviderConfig is n videogen_video resources, one per prompt, with each of
// settings as a line of the provider block.
func ProviderConfig(prompts []string, settings ...string) string {
	return videoConfig("", prompts, settings)
}

// NoopConfig is ProviderConfig for the no-op provider (internal/bench/noop),
// installed as version NoopVersion.
func NoopConfig(prompts []string) string {
	return videoConfig(NoopVersion, prompts, nil)
}

// videoConfig is n videogen_video resources of the provider at version, or of
// the newest installed when version is empty.
func videoConfig(version string, prompts, settings []string) string {
	constraint := ""
	if version != "" {
		constraint = fmt.Sprintf("\n      version = %q", version)
	}
	return fmt.Sprintf(`terraform {
  required_providers {
    videogen = {
      source = "videogen/videogen"%s
    }
  }
}

# base_url and api_key come from VIDEOGEN_BASE_URL and VIDEOGEN_API_KEY.
provider "videogen" {%s}

locals {
  prompts = %s
}

resource "videogen_video" "clip" {
  count  = length(local.prompts)
  model  = %q
  prompt = local.prompts[count.index]
}
`, constraint, providerSettings(settings), hclList(prompts), benchModel)
}

func providerSettings(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return "\n  " + strings.Join(lines, "\n  ") + "\n"
}

// PeerConfig is the hand-written way: one terraform_data per clip whose
// local-exec provisioner runs the peer script, polling every pollSeconds
// (curl and sleep 5, or sleep 1 for the fast peer).
func PeerConfig(prompts []string, script string, pollSeconds int) string {
	return fmt.Sprintf(`locals {
  prompts = %s
}

resource "terraform_data" "clip" {
  count = length(local.prompts)
  input = local.prompts[count.index]

  provisioner "local-exec" {
    interpreter = ["bash"]
    command     = %q
    environment = {
      PROMPT       = self.input
      MODEL        = %q
      POLL_SECONDS = "%d"
    }
  }
}
`, hclList(prompts), script, benchModel, pollSeconds)
}

// BaselineConfig is the same number of terraform_data resources doing nothing:
// Terraform's own time for a configuration of that size.
func BaselineConfig(prompts []string) string {
	return fmt.Sprintf(`locals {
  prompts = %s
}

resource "terraform_data" "clip" {
  count = length(local.prompts)
  input = local.prompts[count.index]
}
`, hclList(prompts))
}

// clipIndex parses the index out of an address such as videogen_video.clip[12], or -1.
func clipIndex(addr string) int {
	rest, ok := strings.CutSuffix(addr, "]")
	if !ok {
		return -1
	}
	name, digits, ok := strings.Cut(rest, ".clip[")
	if !ok || name == "" || strings.Contains(name, ".") {
		return -1
	}
	i, err := strconv.Atoi(digits)
	if err != nil || i < 0 {
		return -1
	}
	return i
}
