package bench

import (
	"strings"
	"testing"
)

// The no-op provider's configuration asks for exactly its version, and is
// otherwise the provider's: the same resources, arguments and provider block.
func TestNoopConfigPinsTheNoopVersion(t *testing.T) {
	t.Parallel()
	prompts := []string{"a", "b"}
	noop, provider := NoopConfig(prompts), ProviderConfig(prompts)
	pin := "\n      version = \"" + NoopVersion + "\""
	if !strings.Contains(noop, "source = \"videogen/videogen\""+pin+"\n") {
		t.Errorf("NoopConfig does not pin version %s:\n%s", NoopVersion, noop)
	}
	if strings.Contains(provider, "version") {
		t.Errorf("ProviderConfig pins a version:\n%s", provider)
	}
	if got := strings.Replace(noop, pin, "", 1); got != provider {
		t.Errorf("NoopConfig without its pin differs from ProviderConfig:\n%s\nwant\n%s", got, provider)
	}
}
