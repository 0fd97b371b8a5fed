// WebRTC playback through WHEP, for Swift: the one owner of every GStreamer call.
//
// The caller does the HTTP (POST the offer, read the 201's answer and Location, DELETE the
// Location at the end); this target does the WebRTC: a GStreamer 1.22 pipeline
//
//   webrtcbin (recvonly; H.264, VP8 if asked; Opus if asked; NACK, PLI, FIR)
//     video: rtph264depay request-keyframe=true wait-for-keyframe=true
//            ! h264parse config-interval=-1 ! video/x-h264,stream-format=byte-stream,alignment=au
//     sound: rtpopusdepay ! opusparse
//   both  -> mpegtsmux -> appsink sync=false   (bytes: MPEG-TS, for FFmpeg's demuxer)
//
// (a session whose answer picks VP8 writes Matroska instead, video only: MPEG-TS cannot carry
// VP8; `story_whep_status.container` says which), and hands the muxed bytes to the caller
// through `story_whep_read`, which Swift feeds to FFmpeg through a custom AVIOContext. FFmpeg
// 5.1 reads both from a non-seekable stream; MPEG-TS announces the sound or the video in a
// new PMT when its first packet comes (as with other live MPEG-TS sources).
//
// Four things GStreamer 1.22 does not do by itself, done here (story_whep_workarounds.c says
// why, with the measurements):
//  - mpegtsmux never times out a silent input: when one track stops, the other would stop
//    with it. While a track is silent (200 ms), each buffer of the other sends it a gap event.
//  - rtph264depay asks for a keyframe only after a loss the jitter buffer reports, so a lost
//    first keyframe (or a server joining mid-GOP) left the picture black until the next one.
//    When 3 pictures arrive without one reaching the muxer, a keyframe is asked for (PLI),
//    again every 500 ms until one does.
//  - its DTLS certificate is RSA 2048, and a server whose DTLS offers ECDHE-ECDSA suites only
//    (aiortc) shares no cipher with it: each session gives webrtcbin an ECDSA P-256
//    certificate of its own (story_whep_certificate.h).
//  - rtpsession held a new SSRC's packets in probation (so the first retransmission waited for
//    a second) and its RTCP bandwidth allowed an early NACK only every ~0.7 s: each rtpsession
//    gets probation 0 and 64 kbit/s of RTCP for receiver reports (a report every ~40-60 ms).
//
// Compiled against GStreamer's headers, linked to none of its libraries: `story_whep_load` opens
// them (`dlopen`, RTLD_NOW | RTLD_LOCAL) the first time a WHEP source plays, so other processes
// pay nothing (story_whep_internal.h: the files and the function table).
// Debian 12 packages needed to build: libgstreamer1.0-dev, libgstreamer-plugins-base1.0-dev,
// libgstreamer-plugins-bad1.0-dev (the headers; scripts/install-deps.sh installs them).
// Debian 12 packages needed at run time (each plugin file checked with dpkg -S):
//   gstreamer1.0-plugins-base  appsink (its libraries package, libgstreamer-plugins-base1.0-0,
//                              has libgstsdp and libgstapp)
//   gstreamer1.0-plugins-good  rtpbin, rtpjitterbuffer, rtprtxreceive, rtph264depay,
//                              rtpopusdepay, rtpvp8depay, matroskamux
//   gstreamer1.0-plugins-bad   webrtcbin, dtlssrtpdec, srtpdec, h264parse, opusparse, mpegtsmux
//                              (libgstreamer-plugins-bad1.0-0 has libgstwebrtc)
//   gstreamer1.0-nice          nicesrc/nicesink, the ICE agent (libnice10)
// libgstreamer1.0-0 comes with all of them; gstreamer1.0-tools (gst-inspect-1.0) only helps.
// libssl3 (libcrypto.so.3, the DTLS certificate) comes with gstreamer1.0-plugins-bad's DTLS.
//
// Threads. Every function blocks its caller and none needs a main loop: webrtcbin and libnice
// run their own GMainContexts on threads of their own, promises are answered on webrtcbin's
// thread, media flows on GStreamer's streaming threads, and bus messages are handled
// synchronously where they are posted (errors and end of stream are noted, every message is
// then dropped). Those threads reach the session only through signal handlers and probes that
// hold the session's mutex for a few instructions (copy bytes, note a state) and wake waiters
// through its condition variable. A session belongs to one thread (the decode thread), with
// two exceptions: `story_whep_interrupt` and `story_whep_status_get` may be called from any
// thread at any time between create and close. `story_whep_close` must not run while another
// call on the same session is still in progress (interrupt, wait for the decode thread to
// return, then close); it sets the pipeline to NULL, which joins every GStreamer thread of
// the session, before it frees anything.
//
// Failures are data: every function returns an error code and a message, never aborts.
#ifndef LIVE_STORIES_STORY_WHEP_H
#define LIVE_STORIES_STORY_WHEP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct story_whep_session story_whep_session;

/// What the session asks the server for.
typedef struct {
    /// The jitter buffer's latency (webrtcbin's `latency`, rtpbin's): how long packets after a
    /// missing one wait for it, and so how long a lost packet has to be retransmitted (NACK)
    /// before it counts as lost (then a keyframe is asked for). 0 or less: 200 ms (webrtcbin's
    /// default). Packets in order are not held (the appsink does not sync to the clock), so
    /// it adds nothing on a clean network; after a loss, the pictures behind it wait for the
    /// retransmission (~1 RTT + 20 ms) or at most this long.
    int jitter_latency_ms;
    /// Also receive sound (Opus). 0: video only (no audio m-line is offered).
    int want_audio;
    /// Also offer VP8, after H.264. If the server picks VP8 the output is Matroska, video only
    /// (MPEG-TS cannot carry VP8, and GStreamer 1.22's matroskamux waits for every track, so
    /// one that stopped would stall the other).
    int want_vp8;
    /// NULL: ICE gathers host candidates on every interface (as a browser does). Otherwise the
    /// one local address ICE may use, e.g. "127.0.0.1" for tests that must stay on loopback
    /// (`GstWebRTCICE::add-local-ip-address`). UPnP port mapping is always off.
    const char *local_address;
} story_whep_options;

/// ICE connection states (webrtcbin's `ice-connection-state`).
enum {
    STORY_WHEP_ICE_NEW = 0, STORY_WHEP_ICE_CHECKING = 1, STORY_WHEP_ICE_CONNECTED = 2,
    STORY_WHEP_ICE_COMPLETED = 3, STORY_WHEP_ICE_FAILED = 4, STORY_WHEP_ICE_DISCONNECTED = 5,
    STORY_WHEP_ICE_CLOSED = 6,
};

/// Peer connection states (webrtcbin's `connection-state`: ICE and DTLS together).
enum {
    STORY_WHEP_CONNECTION_NEW = 0, STORY_WHEP_CONNECTION_CONNECTING = 1,
    STORY_WHEP_CONNECTION_CONNECTED = 2, STORY_WHEP_CONNECTION_DISCONNECTED = 3,
    STORY_WHEP_CONNECTION_FAILED = 4, STORY_WHEP_CONNECTION_CLOSED = 5,
};

/// A snapshot of the session (`story_whep_status_get`).
typedef struct {
    int ice_state;                 ///< STORY_WHEP_ICE_*
    int connection_state;          ///< STORY_WHEP_CONNECTION_*
    int jitter_latency_ms;         ///< as configured
    /// How long video packets stay in the jitter buffer, in ms: a moving average (1/16 per
    /// packet) of the time from a packet's arrival at the rtpjitterbuffer to its departure,
    /// measured with pad probes. Near 0 on a clean network (packets in order leave at once);
    /// it rises while packets wait for retransmissions. Until a video packet has left the
    /// jitter buffer: the configured latency.
    double jitter_depth_ms;
    /// From webrtcbin's `get-stats`, summed over the inbound streams (video and sound):
    /// RTP packets received (`packets-received`), lost for good (`packets-lost`, the jitter
    /// buffers' count: packets retransmitted in time are not lost), NACK packets sent
    /// (`nack-count`; one may ask for several packets) and PLIs sent (`pli-count`, keyframe
    /// requests: rtph264depay's after a loss and this target's watchdog; FIRs are counted too).
    unsigned long long packets_received, packets_lost, nacks_sent, plis_sent;
    /// Retransmissions asked for (the jitter buffers' `rtx-count`: one a lost packet per try)
    /// and received in time (`rtx-success-count`).
    unsigned long long rtx_requested, rtx_recovered;
    /// Bytes the reader did not take in time and that were dropped (whole 188-byte packets,
    /// oldest first; the queue holds 8 MiB).
    unsigned long long bytes_dropped;
    int video_pt;                  ///< the video payload type received; -1 before the first packet
    char video_codec[16];          ///< "H264", "VP8"; "" before the first video packet
    char container[16];            ///< "mpegts" or "matroska" once the answer is set; "" before
} story_whep_status;

/// Opens GStreamer (`dlopen` of libglib-2.0, libgobject-2.0, libgstreamer-1.0, libgstsdp-1.0,
/// libgstwebrtc-1.0, libgstapp-1.0 and `dlsym` of each function), calls `gst_init_check`, and
/// checks that every element a session needs is installed (`gst_element_factory_find`).
/// Once per process: later calls return the first call's result at once. Thread-safe.
/// Returns 0, or -1 with a message in `error` (the missing library, symbol or element, and the
/// Debian package that has it).
int story_whep_load(char *error, size_t capacity);

/// Builds and starts (PLAYING) a session's pipeline: `gst_parse_launch` of webrtcbin and an
/// appsink, the ICE agent configured (`g_object_get` of `ice-agent` and `agent`, `upnp`
/// off, `add-local-ip-address` if asked), recvonly transceivers (`add-transceiver`, then
/// `do-nack` on each), signal handlers (`pad-added`, `notify::ice-gathering-state`,
/// `notify::ice-connection-state`, `notify::connection-state`, appsink `new-sample` and `eos`,
/// rtpbin `new-jitterbuffer` (pad probes for the jitter buffer's depth), the pipeline's
/// `deep-element-added` (rtpsession's `probation` and RTCP bandwidth)) and a bus sync handler
/// (`gst_bus_set_sync_handler`, `gst_bus_sync_signal_handler`: `sync-message::error`,
/// `sync-message::eos`), then `gst_element_set_state`. Streams are linked as they arrive
/// (`pad-added`: `gst_parse_bin_from_description`, `gst_element_request_pad_simple`,
/// `gst_pad_link`, pad probes for the gap events and the keyframe watchdog, which send
/// `gst_event_new_gap` and a GstForceKeyUnit `gst_event_new_custom` with `gst_pad_send_event`).
/// Allocates an 8 MiB byte queue. Call `story_whep_load` first (it is called if not).
/// Returns the session, or NULL with a message in `error`.
story_whep_session *story_whep_create(const story_whep_options *options, char *error, size_t capacity);

/// Makes the offer to POST: `create-offer`, `set-local-description` (each answered through a
/// GstPromise), waits for ICE gathering to complete (WHEP without trickle: every candidate is
/// in the offer), then reads `local-description` (`gst_sdp_message_as_text`).
/// `*sdp` is `malloc`ed; the caller frees it with `free`. Returns 0, or -1 with a message in
/// `error` (also when `timeout_ms` passes first, or the session is interrupted).
int story_whep_offer(story_whep_session *session, char **sdp, int timeout_ms, char *error, size_t capacity);

/// Video codecs an answer may pick.
enum { STORY_WHEP_CODEC_H264 = 1, STORY_WHEP_CODEC_VP8 = 2 };

/// What the caller read in the answer (Swift's `WHEPAnswer`) before it is set: the codec of its
/// video m-line's first payload type, which decides the container (H.264: MPEG-TS, VP8:
/// Matroska), and that m-line's payload types, which tell the jitter-depth probes the video
/// packets from the sound's.
typedef struct {
    int video_codec;                          ///< STORY_WHEP_CODEC_*
    unsigned char video_payload_types[128];   ///< 1 at each payload type of the video m-line
} story_whep_answer_video;

/// Sets the server's answer (the 201's body), which the caller has read for `video`:
/// `gst_sdp_message_parse_buffer`, `gst_webrtc_session_description_new`,
/// `set-remote-description` answered through a GstPromise (an error in the reply is a rejected
/// answer). Before that it adds the muxer `video`'s codec calls for (`gst_element_factory_make`,
/// `gst_bin_add`, `gst_element_link`, `gst_element_sync_state_with_parent`). ICE connectivity
/// checks start here; media follows when they and DTLS succeed.
/// Returns 0, or -1 with a message in `error`: an SDP that does not parse, a codec the
/// installed plugins cannot take, or an answer webrtcbin rejects (e.g. no codec in common,
/// missing ICE credentials or fingerprint); waits at most 10 s.
int story_whep_answer(story_whep_session *session, const char *sdp, const story_whep_answer_video *video,
                      char *error, size_t capacity);

/// Copies up to `capacity` muxed bytes into `buffer` (taken in the appsink's `new-sample`:
/// `gst_app_sink_pull_sample`, `gst_sample_get_buffer`, `gst_buffer_get_size`,
/// `gst_buffer_extract`; no GStreamer call on the reader's thread). Waits for bytes at most
/// `timeout_ms` (0: does not wait). Returns the count copied; 0 when nothing came within the
/// timeout (a track that stopped, ICE not yet connected: the caller decides how long is too
/// long); -1 when the session is over, bytes already queued being returned first: ICE or the
/// connection failed, the pipeline posted an error (its text), end of stream, or
/// `story_whep_interrupt` (at once, queued bytes or not). `story_whep_error` then says why.
/// Measured on loopback: the first bytes ~0.3 s after story_whep_answer (ICE, DTLS, the first
/// packets); an unreachable server is "ICE failed" ~7 s after it (libnice's check timeouts),
/// so a caller's own deadline is usually shorter. A server that stops sending without closing
/// (no RTCP BYE, no DTLS close) gives reads of 0, never -1: the caller's read timeout decides.
/// A DELETE by the caller or the server's closing the peer connection is not always seen
/// either (webrtcbin 1.22 keeps the ICE and DTLS state of a peer that left): same.
long story_whep_read(story_whep_session *session, unsigned char *buffer, size_t capacity, int timeout_ms);

/// Why the session failed or ended ("" while it has not), once a call has returned -1. Valid
/// until `story_whep_close`.
const char *story_whep_error(story_whep_session *session);

/// Fills `status` (see the fields). Calls `get-stats` (a GstPromise, waited for at most
/// 500 ms; the counters are those of the last answer if it takes longer) and reads its
/// `inbound-rtp` structures (`gst_structure_n_fields`, `gst_structure_nth_field_name`,
/// `gst_structure_get_value`, `gst_value_get_structure`, `gst_structure_get_uint64`...).
/// Safe from any thread between create and close.
void story_whep_status_get(story_whep_session *session, story_whep_status *status);

/// Makes a blocked `story_whep_read`, `story_whep_offer` or `story_whep_answer` return -1 at
/// once, and every later one too ("interrupted"); interrupts a pending promise
/// (`gst_promise_interrupt`). Safe from any thread between create and close.
void story_whep_interrupt(story_whep_session *session);

/// Stops the pipeline (`gst_element_set_state` NULL, which joins its threads), disconnects
/// the handlers (`g_signal_handler_disconnect`), releases it (`gst_object_unref`) and frees the
/// session. Safe after interrupt; NULL is ignored. Does not send the WHEP DELETE: the caller does.
void story_whep_close(story_whep_session *session);

#ifdef __cplusplus
}
#endif

#endif
