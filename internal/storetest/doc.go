// Package storetest starts the real storage servers that tests of object-store
// destinations run against, each on 127.0.0.1 at a free port with its data in
// the test's temporary directory, and stops it when the test ends:
//
//   - StartS3: versitygw, an S3 server (posix backend), with one bucket;
//   - StartGCS: fake-gcs-server, Google Cloud Storage's emulator, with one bucket;
//   - StartAzurite: Azurite, Azure's storage emulator (blob service), with one
//     container.
//
// Each returns a *Server: the URL of a key in its bucket (Server.URL), and the
// environment a client needs to reach it with its cloud's standard credential
// chain (Server.Env; Server.Setenv sets it for the test). Nothing a test
// writes leaves the loopback interface.
//
// The servers are built or installed into bin/tools by the GNUmakefile
// (`make store-servers`); a test that finds one missing runs that make target
// itself. A server that cannot be built or started fails the test, never skips
// it.
package storetest
