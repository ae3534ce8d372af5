package storetest

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// AzuriteAccount is the storage account the tests' Azurite serves; its key
// is made for each start.
const AzuriteAccount = "videogentest"

// StartAzurite starts Azurite's blob service (node runs it), keeping blobs in
// a temporary directory, with one account of a fresh key and one container,
// "clips", for the test. Its Env names the account, its key and the
// emulator's address the way gocloud's azureblob reads them (AZURE_STORAGE_*).
func StartAzurite(t testing.TB) *Server {
	t.Helper()
	return start(t, "azblob")
}

func startAzurite(ctx context.Context, root, dir string) (*Server, error) {
	bin, err := tool(ctx, root, "AZURITE")
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "azurite")
	key := base64.StdEncoding.EncodeToString([]byte(randomHex(32)))
	endpoint, log, stop, err := run(ctx, "azurite", func(ctx context.Context, port int) *exec.Cmd {
		// Not --silent: its access log has a line for each request once it
		// was answered, which tells a test (AwaitLogLine) that a block was
		// staged.
		//nolint:gosec // G204: the server make store-server-path installed
		cmd := exec.CommandContext(ctx, bin, "--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(port),
			"--location", data, "--skipApiVersionCheck", "--disableTelemetry")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "AZURITE_ACCOUNTS=" + AzuriteAccount + ":" + key}
		return cmd
	}, answers)
	if err != nil {
		return nil, err
	}
	s := &Server{
		Kind:     "azblob",
		Endpoint: endpoint,
		Bucket:   "clips",
		Env: map[string]string{
			"AZURE_STORAGE_ACCOUNT":              AzuriteAccount,
			"AZURE_STORAGE_KEY":                  key,
			"AZURE_STORAGE_DOMAIN":               strings.TrimPrefix(endpoint, "http://"),
			"AZURE_STORAGE_PROTOCOL":             "http",
			"AZURE_STORAGE_IS_LOCAL_EMULATOR":    "true",
			"AZURE_STORAGE_SAS_TOKEN":            "",
			"AZURE_STORAGE_CONNECTION_STRING":    "",
			"AZURE_STORAGEBLOB_CONNECTIONSTRING": "",
		},
		name: "azurite",
		log:  log,
		stop: stop,
	}
	c, err := s.azureClient()
	if err == nil {
		_, err = c.Create(ctx, nil)
	}
	if err != nil {
		stop()
		return nil, fmt.Errorf("creating the container on Azurite: %w\n%s", err, log.String())
	}
	return s, nil
}

// AzureClient is an Azure SDK client of the server's container with the
// account's key: the store's own client, to check what a test wrote.
func (s *Server) AzureClient(t testing.TB) *container.Client {
	t.Helper()
	c, err := s.azureClient()
	if err != nil {
		t.Fatalf("storetest: an Azure client for %s: %v", s.Endpoint, err)
	}
	return c
}

func (s *Server) azureClient() (*container.Client, error) {
	cred, err := azblob.NewSharedKeyCredential(AzuriteAccount, s.Env["AZURE_STORAGE_KEY"])
	if err != nil {
		return nil, err
	}
	return container.NewClientWithSharedKeyCredential(s.Endpoint+"/"+AzuriteAccount+"/"+s.Bucket, cred, nil)
}
