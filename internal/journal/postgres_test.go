package journal

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A journal_url's passwords (in the user information, or as the password and
// sslpassword parameters pgx reads) never show in what the journal says of
// itself or of the database's errors, as written or escaped.
func TestPostgresURLPasswordsNeverShow(t *testing.T) {
	const user, param, ssl = "p@ss w/rd", "pw-param-41", "key-pass-97"
	raw := "postgres://runner:" + url.PathEscape(user) + "@db.example:5432/ci?sslmode=require&password=" +
		url.QueryEscape(param) + "&sslpassword=" + url.QueryEscape(ssl)
	s := &pgStore{url: raw, redacted: RedactURL(raw), secrets: urlSecrets(raw)}
	err := s.fail("connect", errors.New("failed to connect to `user=runner password="+param+" sslpassword="+ssl+
		" url="+raw+" pw="+user+"`"))
	for _, shown := range []string{s.where(), err.Error()} {
		for _, secret := range []string{user, url.PathEscape(user), url.QueryEscape(user), param, ssl} {
			if strings.Contains(shown, secret) {
				t.Errorf("%q shows the password %q", shown, secret)
			}
		}
	}
	if !strings.Contains(s.where(), "db.example:5432/ci") {
		t.Errorf("where() = %q: the database is no longer named", s.where())
	}
}

// The journal's session asks for a short TCP keepalive, except for what its
// URL sets itself, as a parameter or in options.
func TestPostgresKeepaliveKeepsWhatTheURLSets(t *testing.T) {
	for raw, want := range map[string]string{
		"postgres://h/db": "SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 3",
		"postgres://h/db?tcp_keepalives_idle=5&options=-c%20tcp_keepalives_count%3D9":            "SET tcp_keepalives_interval = 10",
		"postgres://h/db?tcp_keepalives_idle=5&tcp_keepalives_interval=5&tcp_keepalives_count=5": "",
	} {
		cfg, err := pgx.ParseConfig(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := keepaliveSettings(cfg); got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
}
