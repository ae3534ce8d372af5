package client

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"golang.org/x/net/http/httpproxy"
)

// WithCACertificates adds the PEM certificates in pemData to the authorities the
// system trusts, for a server whose certificate an internal CA signed. It may be
// given several times; each adds its certificates.
func WithCACertificates(pemData []byte) Option {
	return func(c *Client) { c.caPEM = append(c.caPEM, pemData) }
}

// CheckCACertificates reports why pemData cannot serve as CA certificates: no PEM
// certificate in it, or one that does not parse. It names the first bad block by
// its position, and quotes nothing of it.
func CheckCACertificates(pemData []byte) error {
	_, err := certificatesOf(pemData)
	return err
}

func certificatesOf(pemData []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	rest := pemData
	for n := 1; ; n++ {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("PEM block %d is a %q, not a CERTIFICATE (a private key does not belong here)", n, block.Type)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PEM block %d is not a valid certificate: %w", n, err)
		}
		certs = append(certs, cert)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM certificate found (expected one or more -----BEGIN CERTIFICATE----- blocks)")
	}
	return certs, nil
}

// setUpTransport gives the client's transport the extra CA certificates and,
// when the client made its own transport, the proxy of the environment as it is
// now (HTTPS_PROXY, HTTP_PROXY, NO_PROXY and their lower-case forms). net/http's
// own ProxyFromEnvironment reads the environment once per process; reading it
// per client means what the provider is started with is what it uses.
func (c *Client) setUpTransport(ownTransport bool) error {
	if len(c.caPEM) == 0 && !ownTransport {
		return nil
	}
	t, ok := c.httpClient.Transport.(*http.Transport)
	if !ok {
		if len(c.caPEM) > 0 {
			return fmt.Errorf("CA certificates need the client's own HTTP transport, got %T", c.httpClient.Transport)
		}
		return nil
	}
	t = t.Clone()
	if ownTransport {
		proxy := httpproxy.FromEnvironment().ProxyFunc()
		t.Proxy = func(req *http.Request) (*url.URL, error) { return proxy(req.URL) }
	}
	if len(c.caPEM) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		for _, data := range c.caPEM {
			certs, err := certificatesOf(data)
			if err != nil {
				return fmt.Errorf("CA certificates: %w", err)
			}
			for _, cert := range certs {
				pool.AddCert(cert)
			}
		}
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if t.TLSClientConfig != nil {
			cfg = t.TLSClientConfig.Clone()
		}
		cfg.RootCAs = pool
		t.TLSClientConfig = cfg
	}
	hc := *c.httpClient
	hc.Transport = t
	c.httpClient = &hc
	return nil
}
