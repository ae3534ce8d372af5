package main

import (
	"context"
	"flag"
	"log"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/videogen/terraform-provider-videogen/internal/journal"
	"github.com/videogen/terraform-provider-videogen/internal/provider"
)

// version is set at build time with -ldflags "-X main.version=..."
// (see GNUmakefile); a plain `go build` reports "dev".
var version string = "dev"

func main() {
	var debug bool

	flag.BoolVar(&debug, "debug", false, "set to true to run the provider with support for debuggers like delve")
	flag.Parse()

	if !debug {
		silenceDroppedLogs()
	}
	opts := providerserver.ServeOpts{
		Address: "registry.terraform.io/videogen/videogen",
		Debug:   debug,
	}

	stopProfile := startCPUProfile(os.Getenv(cpuProfileEnv))
	err := providerserver.Serve(context.Background(), provider.New(version), opts)
	stopProfile()
	// Terraform shut the provider down: every task it submitted was answered to
	// Terraform. That is no proof that Terraform saved them (it may be killed
	// before it uploads the state), so the journal only marks them, for the
	// reason a later run gives when it adopts one.
	if endErr := journal.EndRuns(context.Background()); endErr != nil {
		log.Print(endErr.Error())
	}
	if err != nil {
		log.Fatal(err.Error())
	}
}

// pluginLogLevels are the variables the plugin libraries read their log levels
// from: the provider's own lines, and the SDK's with its protocol and framework
// parts.
var pluginLogLevels = []string{"TF_LOG_PROVIDER", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"}

// silenceDroppedLogs turns the plugin libraries' logs off when the CLI that
// started the provider drops them. The libraries log every RPC, attribute and
// plan modifier at trace level unless told otherwise, and leave the filtering to
// the CLI, which keeps a provider's lines only when TF_LOG or TF_LOG_PROVIDER is
// set (the provider inherits its environment); encoding lines nobody keeps took
// more than half the CPU of planning 300 clips. Any TF_LOG variable that may
// concern providers (TF_LOG, TF_LOG_PROVIDER, TF_LOG_PROVIDER_*, TF_LOG_SDK*)
// leaves every level as it is; TF_LOG_CORE and TF_LOG_PATH do not concern them.
func silenceDroppedLogs() {
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TF_LOG") && name != "TF_LOG_CORE" && name != "TF_LOG_PATH" && value != "" {
			return
		}
	}
	for _, name := range pluginLogLevels {
		_ = os.Setenv(name, "off")
	}
}
