// Package ports picks loopback ports for the processes a test or a
// benchmark starts and configures by address (a devchain, `ordo serve`,
// PostgreSQL), which bind them only later.
//
// A port the kernel hands out for port 0 is an ephemeral port: once closed
// it may go, before the child binds it, to any outgoing connection of the
// machine as its source port (`bind: address already in use`). So ports are
// picked outside the kernel's ephemeral range (Linux:
// /proc/sys/net/ipv4/ip_local_port_range), below its low end, and checked
// free by binding them.
//
// Invariants: every port returned lies in Window(), outside the ephemeral
// range the kernel reports (or, when it reports none, below 32768, under
// the ephemeral ranges of Linux, macOS and Windows); the n ports of
// Consecutive were all bound together a moment before it returned.
package ports
