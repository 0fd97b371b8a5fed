// The DTLS certificate of a WHEP session: ECDSA P-256, made with OpenSSL 3's libcrypto (opened
// at run time, as GStreamer is), and handed to webrtcbin's DTLS elements (story_whep_workarounds.c).
//
// Why not GStreamer's own: gst-plugins-bad 1.22's DTLS agent makes an RSA 2048 certificate
// (ext/dtls/gstdtlscertificate.c; ECDSA only from 1.27.2, commit 6db20592ef). Answering our
// actpass offer, most servers take the DTLS client's side, so webrtcbin is the server and its
// certificate decides the cipher suite: a client that offers ECDHE-ECDSA suites only, as an
// unmodified aiortc does, finds none it shares with an RSA certificate ("no shared cipher" in
// tls_post_process_client_hello, measured), and the connection fails. Browsers and most
// servers use ECDSA P-256 certificates and offer both families. The DTLS agent's cipher list,
// "ALL:!ADH:!LOW:!EXP:!MD5:@STRENGTH", has ECDHE-ECDSA and ECDHE-RSA suites; with an ECDSA
// certificate webrtcbin serves ECDHE-ECDSA, and as a client it still takes a server's RSA
// certificate.
//
// Private to the target (not in include/): Swift never sees it.
#ifndef LIVE_STORIES_STORY_WHEP_CERTIFICATE_H
#define LIVE_STORIES_STORY_WHEP_CERTIFICATE_H

#include <stddef.h>

/// "XX:XX:…": the SHA-256 of the certificate's DER, 32 bytes in hex.
#define STORY_FINGERPRINT_LENGTH (32 * 3)

typedef struct {
    /// The certificate and its private key (PKCS#8), PEM, for dtlsdec's `pem` (malloc'd).
    char *pem;
    /// For the SDP's a=fingerprint:sha-256 (see story_whep_sdp_with_fingerprint).
    char fingerprint[STORY_FINGERPRINT_LENGTH];
} story_whep_certificate;

/// Opens libcrypto.so.3 and finds its functions, once (story_whep_load calls it under its
/// lock). 0, or -1 with a message.
int story_whep_certificate_load(char *error, size_t capacity);

/// A new self-signed ECDSA P-256 certificate (SHA-256 signature, valid from a day ago for 30
/// days: DTLS peers check the fingerprint, not the dates). 0, or -1 with a message.
int story_whep_certificate_make(story_whep_certificate *certificate, char *error, size_t capacity);

void story_whep_certificate_free(story_whep_certificate *certificate);

/// `sdp` with the value of each a=fingerprint line replaced by "sha-256 <fingerprint>"
/// (malloc'd; NULL when out of memory). webrtcbin 1.22 hashes every base64 line of the PEM it
/// was given, the private key's too (webrtcsdp.c, _generate_fingerprint_from_certificate),
/// so the fingerprint it writes for a certificate given as PEM matches nothing.
char *story_whep_sdp_with_fingerprint(const char *sdp, const char *fingerprint);

#endif
