// What the files of CStoryWHEP share (private to the target: Swift sees include/story_whep.h).
//
//   story_whep_load.c        opening GStreamer: dlopen of its libraries, dlsym of each function
//   story_whep_session.c     a session's life: create (the pipeline, ICE, transceivers,
//                            handlers), read, error, interrupt, close
//   story_whep_promise.c     webrtcbin's actions answered through a GstPromise, with a deadline
//   story_whep_negotiation.c the offer and the answer (the muxer the answer's codec picks)
//   story_whep_handlers.c    signal handlers and bus messages, on GStreamer's threads: states,
//                            bytes for the reader, each new stream linked to the muxer
//   story_whep_workarounds.c what GStreamer 1.22 does not do by itself (include/story_whep.h
//                            lists them): gap events, the keyframe watchdog, rtpsession tuning
//                            and the DTLS certificate handed to each transport
//   story_whep_status.c      the figures: the jitter buffer's depth (pad probes) and get-stats
//   story_whep_certificate.c the session's ECDSA certificate (OpenSSL, opened at run time)
//
// Compiled against GStreamer's and GLib's own headers (the CGStreamerWebRTC module gives their
// include paths, not their libraries), so every type and struct layout is theirs. Nothing is
// linked to them: each function is called through `G`, a table whose members are typed from the
// headers' declarations and filled by `dlsym` (story_whep_load.c), so a process that plays no
// WHEP source never loads GStreamer. A call written without `G.` would need the library at link
// time and fail the build (no -l flag is given), so none can slip through.
#ifndef LIVE_STORIES_STORY_WHEP_INTERNAL_H
#define LIVE_STORIES_STORY_WHEP_INTERNAL_H

#define GST_USE_UNSTABLE_API // gst/webrtc: "unstable" in 1.22 (a warning otherwise), used as 1.22 has it
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/sdp/sdp.h>
#include <gst/webrtc/webrtc.h>

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "story_whep.h"
#include "story_whep_certificate.h"

// MARK: - GLib and GStreamer, opened at run time

enum { LIB_GLIB, LIB_GOBJECT, LIB_GST, LIB_SDP, LIB_WEBRTC, LIB_APP, LIB_COUNT };

/// Every function called: the library that has it, and its name, from which both the table's
/// member (typed as the header declares the function) and the symbol looked up come.
#define STORY_GST_FUNCTIONS(X) \
    X(LIB_GLIB, g_free) X(LIB_GLIB, g_error_free) \
    X(LIB_GOBJECT, g_object_set) X(LIB_GOBJECT, g_object_get) X(LIB_GOBJECT, g_object_unref) \
    X(LIB_GOBJECT, g_signal_connect_data) X(LIB_GOBJECT, g_signal_emit_by_name) \
    X(LIB_GOBJECT, g_signal_handler_disconnect) X(LIB_GOBJECT, g_type_check_value_holds) \
    X(LIB_GOBJECT, g_value_get_boxed) \
    X(LIB_GST, gst_init_check) X(LIB_GST, gst_version_string) X(LIB_GST, gst_parse_launch) \
    X(LIB_GST, gst_parse_bin_from_description) X(LIB_GST, gst_bin_get_by_name) X(LIB_GST, gst_bin_add) \
    X(LIB_GST, gst_element_set_state) X(LIB_GST, gst_element_sync_state_with_parent) \
    X(LIB_GST, gst_element_get_static_pad) X(LIB_GST, gst_element_request_pad_simple) \
    X(LIB_GST, gst_element_get_bus) X(LIB_GST, gst_element_link) X(LIB_GST, gst_element_factory_make) \
    X(LIB_GST, gst_element_factory_find) X(LIB_GST, gst_element_get_factory) X(LIB_GST, gst_object_get_name) \
    X(LIB_GST, gst_bus_set_sync_handler) X(LIB_GST, gst_bus_sync_signal_handler) \
    X(LIB_GST, gst_message_parse_error) X(LIB_GST, gst_pad_link) X(LIB_GST, gst_pad_send_event) \
    X(LIB_GST, gst_event_new_gap) X(LIB_GST, gst_event_new_custom) X(LIB_GST, gst_structure_from_string) \
    X(LIB_GST, gst_object_ref) X(LIB_GST, gst_pad_get_current_caps) X(LIB_GST, gst_pad_query_caps) \
    X(LIB_GST, gst_pad_add_probe) X(LIB_GST, gst_pad_probe_info_get_buffer) \
    X(LIB_GST, gst_pad_probe_info_get_event) X(LIB_GST, gst_event_has_name) \
    X(LIB_GST, gst_pad_probe_info_get_buffer_list) X(LIB_GST, gst_buffer_list_length) \
    X(LIB_GST, gst_buffer_list_get) X(LIB_GST, gst_caps_from_string) X(LIB_GST, gst_caps_get_size) \
    X(LIB_GST, gst_caps_get_structure) X(LIB_GST, gst_structure_get_name) \
    X(LIB_GST, gst_structure_get_string) X(LIB_GST, gst_structure_get_int) \
    X(LIB_GST, gst_structure_get_uint) X(LIB_GST, gst_structure_get_int64) \
    X(LIB_GST, gst_structure_get_uint64) X(LIB_GST, gst_structure_n_fields) \
    X(LIB_GST, gst_structure_nth_field_name) X(LIB_GST, gst_structure_get_value) \
    X(LIB_GST, gst_structure_get_type) X(LIB_GST, gst_value_get_structure) \
    X(LIB_GST, gst_promise_new_with_change_func) X(LIB_GST, gst_promise_wait) \
    X(LIB_GST, gst_promise_get_reply) X(LIB_GST, gst_promise_interrupt) X(LIB_GST, gst_mini_object_unref) \
    X(LIB_GST, gst_sample_get_buffer) X(LIB_GST, gst_buffer_get_size) X(LIB_GST, gst_buffer_extract) \
    X(LIB_GST, gst_object_unref) \
    X(LIB_SDP, gst_sdp_message_new) X(LIB_SDP, gst_sdp_message_parse_buffer) \
    X(LIB_SDP, gst_sdp_message_as_text) X(LIB_SDP, gst_sdp_message_free) \
    X(LIB_WEBRTC, gst_webrtc_session_description_new) X(LIB_WEBRTC, gst_webrtc_session_description_free) \
    X(LIB_APP, gst_app_sink_pull_sample)

#define STORY_GST_MEMBER(library, name) __typeof__(name) *name;
/// The functions, found by story_whep_load: member `name` is the library's `name`.
struct story_gst_functions {
    STORY_GST_FUNCTIONS(STORY_GST_MEMBER)
};
#undef STORY_GST_MEMBER
extern struct story_gst_functions G;

/// rtpvp8depay and matroskamux (plugins-good) are there; set by story_whep_load.
extern int story_have_vp8;

// MARK: - Messages and time

void story_copy(char *error, size_t capacity, const char *text);
void story_format(char *error, size_t capacity, const char *format, ...) __attribute__((format(printf, 3, 4)));
/// `error`'s message after `prefix`, and frees it; "unknown error" when there is none.
void story_take_gerror(GError *error, char *out, size_t capacity, const char *prefix);

uint64_t story_now_ns(void);
/// CLOCK_MONOTONIC, `timeout_ms` from now (0 when negative).
struct timespec story_deadline(int timeout_ms);
/// A condition variable that waits on CLOCK_MONOTONIC (story_deadline's clock).
void story_cond_init(pthread_cond_t *cond);

// MARK: - The session

#define STORY_QUEUE_CAPACITY (8u << 20)
#define STORY_TS_PACKET 188u
#define STORY_ARRIVALS 1024u

enum { STORY_CONTAINER_NONE, STORY_CONTAINER_TS, STORY_CONTAINER_MATROSKA };

struct story_whep_session {
    pthread_mutex_t lock;
    pthread_cond_t cond;

    GstElement *pipeline, *webrtc, *appsink, *rtpbin, *mux; // mux: set once, in story_whep_answer
    GstBus *bus;
    struct { gpointer instance; gulong id; } handlers[12];
    int handler_count;

    story_whep_certificate certificate; // ours, ECDSA P-256: given to each dtlssrtpdec webrtcbin makes
    int jitter_latency_ms;
    int want_audio;
    int container;
    unsigned char video_pts[128]; // payload types of the answer's video m-line

    // Under `lock`:
    int gathering_state, ice_state, connection_state;
    int interrupted, ended; // ended: failed or at end of stream; `error` says which
    char error[512];
    GstPromise *pending; // the promise story_whep_offer/answer waits for (interrupt interrupts it)
    unsigned char *queue;
    size_t queue_head, queue_length;
    unsigned long long bytes_dropped;
    int video_pt;
    char video_codec[16];
    int linked_video, linked_audio;
    // The muxer's input of each track (0 video, 1 sound), for gap events (story_on_mux_buffer).
    struct {
        GstPad *branch_pad;     // the depayloader bin's src pad, where story_on_mux_buffer looks
        GstPad *mux_pad;        // requested when the branch's caps come (story_on_branch_event)
        const char *mux_template;
        int flowing;            // has had a buffer (so it has had caps and a segment)
        uint64_t last_wall_ns;  // when its last buffer reached the muxer
        unsigned long long gaps; // gap events sent to it
    } tracks[2];
    // The keyframe watchdog (story_on_video_rtp).
    uint32_t video_rtp_timestamp;
    int video_frames_waiting;     // pictures (RTP timestamps) received since one reached the muxer
    uint64_t keyframe_requested_ns;
    unsigned long long keyframe_requests;
    struct { uint16_t sequence; uint16_t valid; uint64_t arrived_ns; } arrivals[STORY_ARRIVALS];
    double depth_ms;
    int depth_samples;
    story_whep_status last_counters;
};

/// Ends the session with `message` unless it has ended already (the first cause is the one
/// reported). `_locked`: called with `lock` held.
void story_end_locked(story_whep_session *session, const char *message);
void story_end(story_whep_session *session, const char *message);

// MARK: - Promises (story_whep_promise.c)

/// Emits `signal` on webrtcbin with `argument` (NULL for none) and a promise, and waits for its
/// reply until `deadline` or an interrupt. Returns the promise (the caller unrefs it) when
/// replied, else NULL with a message in `error`.
GstPromise *story_call(story_whep_session *session, const char *signal, gpointer argument,
                       const struct timespec *deadline, char *error, size_t capacity);
/// -1 with the reply's "error" (set-*-description, create-offer) after `prefix` in `error`;
/// 0 when there is none.
int story_reply_error(const GstStructure *reply, char *error, size_t capacity, const char *prefix);
/// `get-stats`, waited for until `deadline`: the reply's promise (the caller unrefs it), or NULL.
GstPromise *story_call_stats(story_whep_session *session, const struct timespec *deadline);

// MARK: - Handlers (story_whep_handlers.c, story_whep_workarounds.c, story_whep_status.c)

void story_on_gathering_state(GObject *webrtc, GParamSpec *pspec, gpointer data);
void story_on_ice_state(GObject *webrtc, GParamSpec *pspec, gpointer data);
void story_on_connection_state(GObject *webrtc, GParamSpec *pspec, gpointer data);
void story_on_bus_error(GstBus *bus, GstMessage *message, gpointer data);
void story_on_bus_eos(GstBus *bus, GstMessage *message, gpointer data);
GstBusSyncReply story_bus_sync(GstBus *bus, GstMessage *message, gpointer data);
GstFlowReturn story_on_new_sample(GstElement *sink, gpointer data);
void story_on_sink_eos(GstElement *sink, gpointer data);
void story_on_pad_added(GstElement *webrtc, GstPad *pad, gpointer data);

void story_on_deep_element_added(GstBin *bin, GstBin *sub_bin, GstElement *element, gpointer data);
GstPadProbeReturn story_on_mux_buffer(GstPad *pad, GstPadProbeInfo *info, gpointer data);
GstPadProbeReturn story_on_video_rtp(GstPad *pad, GstPadProbeInfo *info, gpointer data);

void story_on_new_jitterbuffer(GstElement *rtpbin, GstElement *jitterbuffer, guint session_id, guint ssrc, gpointer data);

#endif
