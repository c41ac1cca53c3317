package grpcnet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	grpcpeer "google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/transport"
	"github.com/ordolabs/ordo/internal/transport/grpcnet/transportpb"
)

// Reasons a peer's certificate is refused; the handshake's error wraps one.
var (
	// ErrNotMember: the certificate's node id is not in the Directory.
	ErrNotMember = errors.New("grpcnet: node not in the directory")
	// ErrFingerprint: the certificate is not the one the Directory pins
	// for its node id.
	ErrFingerprint = errors.New("grpcnet: certificate fingerprint mismatch")
	// ErrWrongPeer: the dialed endpoint presented another node's
	// certificate.
	ErrWrongPeer = errors.New("grpcnet: endpoint is another node")
	// ErrExpired: the certificate is outside its validity.
	ErrExpired = errors.New("grpcnet: certificate outside its validity")
)

// verify checks a peer's certificate chain (raw DER, leaf first) against the
// Directory and returns its node id. want, when set, is the node dialed.
func (t *Transport) verify(raw [][]byte, want transport.NodeID) (transport.NodeID, error) {
	if len(raw) == 0 {
		return "", errors.New("grpcnet: no peer certificate")
	}
	cert, err := x509.ParseCertificate(raw[0])
	if err != nil {
		return "", fmt.Errorf("grpcnet: peer certificate: %w", err)
	}
	id, err := identity.NodeIDOfCertificate(cert)
	if err != nil {
		return "", fmt.Errorf("grpcnet: peer certificate: %w", err)
	}
	if want != "" && id != want {
		return id, fmt.Errorf("%w: dialed %s, certificate of %s", ErrWrongPeer, want, id)
	}
	entry, ok := t.cfg.Peers.Lookup(id)
	if !ok {
		return id, fmt.Errorf("%w: %s", ErrNotMember, id)
	}
	if fp := identity.FingerprintDER(raw[0]); fp != entry.Fingerprint {
		return id, fmt.Errorf("%w: %s presented %s, directory holds %s", ErrFingerprint, id, fp, entry.Fingerprint)
	}
	if now := t.cfg.Clock.Now(); now.Before(cert.NotBefore) || now.After(cert.NotAfter) {
		return id, fmt.Errorf("%w: %s valid %v to %v", ErrExpired, id, cert.NotBefore, cert.NotAfter)
	}
	return id, nil
}

// serverTLS: present our certificate, require one from the client and check
// it against the Directory (chains are not verified: identities are pinned
// by fingerprint).
func (t *Transport) serverTLS() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{t.cfg.Certificate},
		ClientAuth:   tls.RequireAnyClientCert,
		MinVersion:   tls.VersionTLS13,
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			id, err := t.verify(raw, "")
			if err != nil {
				t.cfg.Logger.Warn("grpcnet: inbound peer refused", "self", t.self, "peer", id, "err", err)
			}
			return err
		},
	}
}

// clientTLS: present our certificate and accept only the certificate the
// Directory pins for the node dialed.
func (t *Transport) clientTLS(want transport.NodeID) *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{t.cfg.Certificate},
		// The chain is not verified against roots: verify pins the
		// certificate by fingerprint and checks its names and validity.
		InsecureSkipVerify: true, //nolint:gosec // verification is VerifyPeerCertificate's (fingerprint pinning)
		MinVersion:         tls.VersionTLS13,
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			id, err := t.verify(raw, want)
			if err != nil {
				t.cfg.Logger.Warn("grpcnet: dialed peer refused", "self", t.self, "peer", want, "presented", id, "err", err)
			}
			return err
		},
	}
}

// server is the Peer service.
type server struct {
	transportpb.UnimplementedPeerServer
	t *Transport
}

// Connect accepts (or refuses) a peer's stream and hands its frames to the
// Handler until it ends.
func (sv server) Connect(st transportpb.Peer_ConnectServer) error {
	t := sv.t
	id, err := t.streamPeer(st.Context())
	if err != nil {
		t.cfg.Logger.Warn("grpcnet: stream refused", "self", t.self, "err", err)
		return status.Error(codes.PermissionDenied, err.Error())
	}
	p, err := t.peer(id)
	if err != nil {
		return status.Error(codes.Unavailable, err.Error())
	}
	ctx, cancel := context.WithCancel(st.Context())
	defer cancel()
	s := &stream{send: st.Send, end: cancel}
	s.sendMu.Lock()
	if !t.accept(p, s) {
		s.sendMu.Unlock()
		return status.Error(codes.AlreadyExists, "grpcnet: the lower node id is dialing this pair")
	}
	err = st.Send(&transportpb.Frame{Hello: true})
	s.sendMu.Unlock()
	if err != nil {
		t.release(p, s)
		return err
	}
	t.cfg.Logger.Debug("grpcnet: stream accepted", "self", t.self, "peer", id)
	ended := make(chan struct{})
	if !t.spawn(func() {
		defer close(ended)
		_ = t.recvLoop(p, s, st.Recv) // ends with the stream
		cancel()
	}) {
		t.release(p, s)
		return status.Error(codes.Unavailable, transport.ErrClosed.Error())
	}
	<-ctx.Done()
	t.release(p, s)
	<-ended
	return nil
}

// streamPeer returns the verified node id of a stream's peer.
func (t *Transport) streamPeer(ctx context.Context) (transport.NodeID, error) {
	pr, ok := grpcpeer.FromContext(ctx)
	if !ok {
		return "", errors.New("grpcnet: no peer on the stream")
	}
	info, ok := pr.AuthInfo.(credentials.TLSInfo)
	if !ok {
		return "", errors.New("grpcnet: stream without TLS")
	}
	raw := make([][]byte, 0, len(info.State.PeerCertificates))
	for _, c := range info.State.PeerCertificates {
		raw = append(raw, c.Raw)
	}
	return t.verify(raw, "")
}

// dialLoop keeps the pair with p connected while this node wants it: it
// dials whenever the pair has no stream, backing off after failures.
func (t *Transport) dialLoop(p *peer) {
	var backoff time.Duration
	for {
		p.mu.Lock()
		for p.cur != nil {
			p.mu.Unlock()
			select {
			case <-p.gone:
			case <-t.done:
				return
			}
			p.mu.Lock()
		}
		p.dialing, p.backoff = true, false
		p.mu.Unlock()
		if t.dialOnce(p) {
			backoff = 0
			continue
		}
		p.mu.Lock()
		p.dialing, p.backoff = false, true
		p.mu.Unlock()
		backoff = min(max(2*backoff, t.cfg.MinBackoff), t.cfg.MaxBackoff)
		timer := t.cfg.Clock.NewTimer(backoff)
		select {
		case <-timer.C():
		case <-t.done:
			timer.Stop()
			return
		}
	}
}

// dialOnce dials p and, when the stream is accepted, serves it until it ends.
// It reports whether the peer accepted the stream.
func (t *Transport) dialOnce(p *peer) bool {
	entry, ok := t.cfg.Peers.Lookup(p.id)
	if !ok {
		t.cfg.Logger.Warn("grpcnet: peer left the directory", "self", t.self, "peer", p.id)
		return false
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	forget, ok := t.track(cancel)
	defer forget()
	if !ok {
		return false
	}
	cc, err := grpc.NewClient("passthrough:///"+entry.Endpoint,
		grpc.WithTransportCredentials(credentials.NewTLS(t.clientTLS(p.id))),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(t.cfg.MaxFrameBytes)),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: keepaliveTime, Timeout: keepaliveTimeout, PermitWithoutStream: true}),
	)
	if err != nil {
		t.cfg.Logger.Warn("grpcnet: dial", "self", t.self, "peer", p.id, "err", err)
		return false
	}
	defer func() { _ = cc.Close() }()
	st, err := transportpb.NewPeerClient(cc).Connect(ctx)
	if err != nil {
		t.cfg.Logger.Debug("grpcnet: connect", "self", t.self, "peer", p.id, "err", err)
		return false
	}
	f, err := st.Recv()
	if err != nil || !f.GetHello() {
		t.cfg.Logger.Debug("grpcnet: stream not accepted", "self", t.self, "peer", p.id, "err", err)
		return false
	}
	s := &stream{dialed: true, send: st.Send, end: cancel}
	if !t.adopt(p, s) {
		return true // the pair has an inbound stream
	}
	t.cfg.Logger.Debug("grpcnet: stream dialed", "self", t.self, "peer", p.id)
	_ = t.recvLoop(p, s, st.Recv) // ends with the stream
	t.release(p, s)
	return true
}
