package validators

import (
	"context"
	"fmt"
	"math/big"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// CallbackURL accepts a webhook URL as RequestURL does, and warns when its host is
// this machine or a private network (loopback, link-local, private, shared or
// unspecified addresses, in any spelling, and names such as localhost or *.local):
// the service posts from its own network, where such an address either reaches
// nothing or reaches the service's own machines.
func CallbackURL() validator.String { return callbackURLValidator{} }

type callbackURLValidator struct{}

func (callbackURLValidator) Description(context.Context) string {
	return "value must be an absolute http or https URL without credentials, in canonical form, that the service can reach"
}

func (v callbackURLValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v callbackURLValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	requestURLValidator{}.ValidateString(ctx, req, resp)
	if resp.Diagnostics.HasError() || req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	u, err := url.Parse(req.ConfigValue.ValueString())
	if err != nil {
		return
	}
	if kind := privateHost(u.Hostname()); kind != "" {
		resp.Diagnostics.AddAttributeWarning(req.Path, "Callback URL Not Reachable by the Service",
			fmt.Sprintf("Attribute %s points at %s, %s. The service posts the task's final state from its own network, "+
				"where this address either reaches nothing or reaches one of the service's own machines: the callback "+
				"will not arrive here, and an address inside the service's network is a way into it. Use an address the "+
				"service can reach over the internet, or leave %s unset and let the provider poll.",
				req.Path, u.Hostname(), kind, req.Path))
	}
}

// privateHost describes why host is not reachable from the service's network, or
// returns "" for a public name or address.
func privateHost(host string) string {
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	switch {
	case name == "localhost" || strings.HasSuffix(name, ".localhost"):
		return "a name for this machine"
	case strings.HasSuffix(name, ".local"):
		return "a link-local (multicast DNS) name"
	case strings.HasSuffix(name, ".internal") || strings.HasSuffix(name, ".home.arpa"):
		return "a name reserved for private networks"
	}
	addr, err := netip.ParseAddr(name)
	if err != nil {
		var ok bool
		if addr, ok = parseLooseIPv4(name); !ok {
			return ""
		}
	}
	addr = addr.Unmap()
	switch {
	case addr.IsLoopback():
		return "a loopback address"
	case addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast():
		return "a link-local address"
	case addr.IsPrivate():
		return "a private address"
	case addr.IsUnspecified():
		return "an unspecified address, which means this machine"
	case sharedAddressSpace.Contains(addr):
		return "a shared (carrier-grade NAT) address"
	}
	return ""
}

var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// parseLooseIPv4 reads the other spellings of an IPv4 address that many HTTP
// clients accept: one to four parts, each decimal, octal (leading 0) or hex (0x),
// the last filling the remaining bytes ("2130706433", "0x7f.1", "127.1").
func parseLooseIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 || s == "" {
		return netip.Addr{}, false
	}
	var values []uint64
	for _, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			p, base = p[2:], 16
		case len(p) > 1 && p[0] == '0':
			p, base = p[1:], 8
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		values = append(values, v)
	}
	var ip uint64
	for i, v := range values[:len(values)-1] {
		if v > 0xFF {
			return netip.Addr{}, false
		}
		ip |= v << (8 * (3 - i))
	}
	last := values[len(values)-1]
	if last >= 1<<(8*(5-len(values))) {
		return netip.Addr{}, false
	}
	ip |= last
	return netip.AddrFrom4([4]byte(new(big.Int).SetUint64(ip).FillBytes(make([]byte, 4)))), true
}
