// Package egress is the node's policy for outbound connections to URLs it
// calls on others' say-so: a processor's callback URL (set by whoever
// creates the processor) and a tool's URL (read from the on-chain
// registry, set by whoever registers the tool). Such a URL must not make
// the node a proxy into its own network: the cloud's metadata service, the
// node's loopback services, the private network behind it.
//
// The check is made on the address being dialed, after name resolution,
// in the dialer's Control hook (Policy.Dialer, Policy.Transport,
// Policy.Client): a name that resolves, or is made to resolve later (DNS
// rebinding), to a refused address is refused at the dial, and so is every
// address a redirect leads to. A proxy is never used: its address would be
// checked instead of the target's.
//
// Invariants:
//   - Link-local addresses (169.254.0.0/16, fe80::/10) and the cloud
//     metadata addresses (169.254.169.254, fd00:ec2::254, 100.100.100.200)
//     are always refused, whatever the policy allows.
//   - Loopback (127.0.0.0/8, ::1, and the unspecified 0.0.0.0/8 and ::,
//     which reach the local host) is refused unless AllowLoopback or a
//     prefix of Allow holds the address; private ranges (10.0.0.0/8,
//     172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7, fec0::/10)
//     unless AllowPrivate or a prefix of Allow holds it.
//   - Multicast and broadcast addresses are always refused.
//   - An IPv4 address mapped into IPv6 (::ffff:a.b.c.d) or carried by the
//     NAT64 prefix (64:ff9b::/96) is judged as the IPv4 address.
//   - Every refusal is a *RefusedError (errors.Is(err, ErrRefused)), which
//     names the address and the rule.
package egress
