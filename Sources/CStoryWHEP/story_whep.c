// WebRTC playback through WHEP: GStreamer 1.22's webrtcbin, opened at run time. See
// include/story_whep.h for the API, the pipeline and the threads.
//
// No GStreamer or GLib header is included (SwiftPM forbids the include flags they need in this
// package): the functions are declared below with opaque pointers, in one table,
// `STORY_GST_FUNCTIONS`, from which both the table's members and the symbols looked up come.
// Struct layouts are avoided (properties, signals and accessor functions instead); the three
// read here are public structs, ABI-stable through GLib 2 and GStreamer 1.x, whose fields have
// no accessor function, each declared below with a comment: GError's `message`,
// GstWebRTCSessionDescription's `sdp`, and GstBuffer's `pts` and `dts` (the muxer's gaps).
//
// Linked to nothing but libc (glibc 2.34+ has dlopen and pthreads in it).
#define _GNU_SOURCE
#include "story_whep.h"
#include "story_whep_certificate.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// MARK: - GLib and GStreamer, declared here

typedef int gboolean;
typedef unsigned int guint;
typedef unsigned long gulong;
typedef size_t GType;
typedef uint64_t GstClockTime;

// Opaque: only ever passed around by pointer.
typedef struct GstElement GstElement;
typedef struct GstPad GstPad;
typedef struct GstBus GstBus;
typedef struct GstMessage GstMessage;
typedef struct GstCaps GstCaps;
typedef struct GstStructure GstStructure;
typedef struct GstPromise GstPromise;
typedef struct GstSample GstSample;
typedef struct GstBuffer GstBuffer;
typedef struct GstBufferList GstBufferList;
typedef struct GstPadProbeInfo GstPadProbeInfo;
typedef struct GstSDPMessage GstSDPMessage;
typedef struct GValue GValue;
typedef struct GObject GObject;
typedef struct GstWebRTCSessionDescriptionOpaque GstWebRTCSessionDescription;

// GLib's GError (gerror.h), public and unchanged since GLib 2.0. Read for its message only
// (an error from the bus or a promise); GLib has no accessor for it.
typedef struct {
    uint32_t domain;
    int code;
    char *message;
} GError;

// GstWebRTCSessionDescription (rtcsessiondescription.h, public since 1.14, unchanged): the SDP
// of `local-description` has no accessor, so its second field is read here, once.
typedef struct {
    int type;
    GstSDPMessage *sdp;
} story_webrtc_description_layout;

// GstBuffer (gstbuffer.h), public and ABI-stable through GStreamer 1.x: its timestamps have
// no accessor function (GST_BUFFER_PTS is a macro), and the muxer's gap events need the PTS of
// the buffer that is passing (`story_on_mux_buffer`). GstMiniObject comes first, as declared
// in gstminiobject.h.
typedef struct {
    GType type;
    int refcount;
    int lockstate;
    unsigned int flags;
    void *copy, *dispose, *free;
    unsigned int priv_uint;
    void *priv_pointer;
} story_mini_object_layout;
typedef struct {
    story_mini_object_layout mini_object;
    void *pool;
    GstClockTime pts, dts, duration;
    uint64_t offset, offset_end;
} story_buffer_layout;
#define STORY_CLOCK_TIME_NONE ((GstClockTime)-1)

typedef void (*GCallback)(void);
typedef void (*GDestroyNotify)(void *);
typedef int (*GstBusSyncHandler)(GstBus *, GstMessage *, void *);
typedef int (*GstPadProbeCallback)(GstPad *, GstPadProbeInfo *, void *);
typedef void (*GstPromiseChangeFunc)(GstPromise *, void *);

enum { GST_STATE_NULL = 1, GST_STATE_PLAYING = 4 };
enum { GST_STATE_CHANGE_FAILURE = 0 };
enum { GST_BUS_DROP = 0 };
enum { GST_FLOW_OK = 0 };
enum { GST_PAD_LINK_OK = 0 };
enum { GST_PAD_PROBE_OK = 1, GST_PAD_PROBE_REMOVE = 2 };
enum { GST_PAD_PROBE_TYPE_BUFFER = 1 << 4, GST_PAD_PROBE_TYPE_BUFFER_LIST = 1 << 5, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM = 1 << 6 };
enum { GST_EVENT_CUSTOM_UPSTREAM = (270 << 8) | 1 }; // GST_EVENT_MAKE_TYPE (270, UPSTREAM)
enum { GST_PROMISE_RESULT_PENDING = 0, GST_PROMISE_RESULT_INTERRUPTED = 1, GST_PROMISE_RESULT_REPLIED = 2 };
enum { GST_SDP_OK = 0 };
enum { GST_WEBRTC_SDP_TYPE_ANSWER = 3 };
enum { GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_RECVONLY = 3 };
enum { GST_WEBRTC_ICE_GATHERING_STATE_COMPLETE = 2 };

enum { LIB_GLIB, LIB_GOBJECT, LIB_GST, LIB_SDP, LIB_WEBRTC, LIB_APP, LIB_COUNT };
static const char *const story_library_files[LIB_COUNT] = {
    "libglib-2.0.so.0", "libgobject-2.0.so.0", "libgstreamer-1.0.so.0",
    "libgstsdp-1.0.so.0", "libgstwebrtc-1.0.so.0", "libgstapp-1.0.so.0",
};

/// Every function called: library, return type, name, parameters.
#define STORY_GST_FUNCTIONS(X) \
    X(LIB_GLIB, void, g_free, (void *)) \
    X(LIB_GLIB, void, g_error_free, (GError *)) \
    X(LIB_GOBJECT, void, g_object_set, (void *, const char *, ...)) \
    X(LIB_GOBJECT, void, g_object_get, (void *, const char *, ...)) \
    X(LIB_GOBJECT, void, g_object_unref, (void *)) \
    X(LIB_GOBJECT, gulong, g_signal_connect_data, (void *, const char *, GCallback, void *, GDestroyNotify, int)) \
    X(LIB_GOBJECT, void, g_signal_emit_by_name, (void *, const char *, ...)) \
    X(LIB_GOBJECT, void, g_signal_handler_disconnect, (void *, gulong)) \
    X(LIB_GOBJECT, gboolean, g_type_check_value_holds, (const GValue *, GType)) \
    X(LIB_GOBJECT, void *, g_value_get_boxed, (const GValue *)) \
    X(LIB_GST, gboolean, gst_init_check, (int *, char ***, GError **)) \
    X(LIB_GST, const char *, gst_version_string, (void)) \
    X(LIB_GST, GstElement *, gst_parse_launch, (const char *, GError **)) \
    X(LIB_GST, GstElement *, gst_parse_bin_from_description, (const char *, gboolean, GError **)) \
    X(LIB_GST, GstElement *, gst_bin_get_by_name, (GstElement *, const char *)) \
    X(LIB_GST, gboolean, gst_bin_add, (GstElement *, GstElement *)) \
    X(LIB_GST, int, gst_element_set_state, (GstElement *, int)) \
    X(LIB_GST, gboolean, gst_element_sync_state_with_parent, (GstElement *)) \
    X(LIB_GST, GstPad *, gst_element_get_static_pad, (GstElement *, const char *)) \
    X(LIB_GST, GstPad *, gst_element_request_pad_simple, (GstElement *, const char *)) \
    X(LIB_GST, GstBus *, gst_element_get_bus, (GstElement *)) \
    X(LIB_GST, gboolean, gst_element_link, (GstElement *, GstElement *)) \
    X(LIB_GST, GstElement *, gst_element_factory_make, (const char *, const char *)) \
    X(LIB_GST, void *, gst_element_factory_find, (const char *)) \
    X(LIB_GST, void *, gst_element_get_factory, (GstElement *)) \
    X(LIB_GST, char *, gst_object_get_name, (void *)) \
    X(LIB_GST, void, gst_bus_set_sync_handler, (GstBus *, GstBusSyncHandler, void *, GDestroyNotify)) \
    X(LIB_GST, int, gst_bus_sync_signal_handler, (GstBus *, GstMessage *, void *)) \
    X(LIB_GST, void, gst_message_parse_error, (GstMessage *, GError **, char **)) \
    X(LIB_GST, int, gst_pad_link, (GstPad *, GstPad *)) \
    X(LIB_GST, gboolean, gst_pad_send_event, (GstPad *, void *)) \
    X(LIB_GST, void *, gst_event_new_gap, (GstClockTime, GstClockTime)) \
    X(LIB_GST, void *, gst_event_new_custom, (int, GstStructure *)) \
    X(LIB_GST, GstStructure *, gst_structure_from_string, (const char *, char **)) \
    X(LIB_GST, void *, gst_object_ref, (void *)) \
    X(LIB_GST, GstCaps *, gst_pad_get_current_caps, (GstPad *)) \
    X(LIB_GST, GstCaps *, gst_pad_query_caps, (GstPad *, GstCaps *)) \
    X(LIB_GST, gulong, gst_pad_add_probe, (GstPad *, int, GstPadProbeCallback, void *, GDestroyNotify)) \
    X(LIB_GST, GstBuffer *, gst_pad_probe_info_get_buffer, (GstPadProbeInfo *)) \
    X(LIB_GST, void *, gst_pad_probe_info_get_event, (GstPadProbeInfo *)) \
    X(LIB_GST, gboolean, gst_event_has_name, (void *, const char *)) \
    X(LIB_GST, GstBufferList *, gst_pad_probe_info_get_buffer_list, (GstPadProbeInfo *)) \
    X(LIB_GST, guint, gst_buffer_list_length, (GstBufferList *)) \
    X(LIB_GST, GstBuffer *, gst_buffer_list_get, (GstBufferList *, guint)) \
    X(LIB_GST, GstCaps *, gst_caps_from_string, (const char *)) \
    X(LIB_GST, guint, gst_caps_get_size, (const GstCaps *)) \
    X(LIB_GST, GstStructure *, gst_caps_get_structure, (const GstCaps *, guint)) \
    X(LIB_GST, const char *, gst_structure_get_name, (const GstStructure *)) \
    X(LIB_GST, const char *, gst_structure_get_string, (const GstStructure *, const char *)) \
    X(LIB_GST, gboolean, gst_structure_get_int, (const GstStructure *, const char *, int *)) \
    X(LIB_GST, gboolean, gst_structure_get_uint, (const GstStructure *, const char *, guint *)) \
    X(LIB_GST, gboolean, gst_structure_get_int64, (const GstStructure *, const char *, int64_t *)) \
    X(LIB_GST, gboolean, gst_structure_get_uint64, (const GstStructure *, const char *, uint64_t *)) \
    X(LIB_GST, int, gst_structure_n_fields, (const GstStructure *)) \
    X(LIB_GST, const char *, gst_structure_nth_field_name, (const GstStructure *, guint)) \
    X(LIB_GST, const GValue *, gst_structure_get_value, (const GstStructure *, const char *)) \
    X(LIB_GST, char *, gst_structure_to_string, (const GstStructure *)) \
    X(LIB_GST, GType, gst_structure_get_type, (void)) \
    X(LIB_GST, const GstStructure *, gst_value_get_structure, (const GValue *)) \
    X(LIB_GST, GstPromise *, gst_promise_new_with_change_func, (GstPromiseChangeFunc, void *, GDestroyNotify)) \
    X(LIB_GST, int, gst_promise_wait, (GstPromise *)) \
    X(LIB_GST, const GstStructure *, gst_promise_get_reply, (GstPromise *)) \
    X(LIB_GST, void, gst_promise_interrupt, (GstPromise *)) \
    X(LIB_GST, void, gst_mini_object_unref, (void *)) \
    X(LIB_GST, GstBuffer *, gst_sample_get_buffer, (GstSample *)) \
    X(LIB_GST, size_t, gst_buffer_get_size, (GstBuffer *)) \
    X(LIB_GST, size_t, gst_buffer_extract, (GstBuffer *, size_t, void *, size_t)) \
    X(LIB_GST, void, gst_object_unref, (void *)) \
    X(LIB_SDP, int, gst_sdp_message_new, (GstSDPMessage **)) \
    X(LIB_SDP, int, gst_sdp_message_parse_buffer, (const unsigned char *, guint, GstSDPMessage *)) \
    X(LIB_SDP, char *, gst_sdp_message_as_text, (const GstSDPMessage *)) \
    X(LIB_SDP, int, gst_sdp_message_free, (GstSDPMessage *)) \
    X(LIB_WEBRTC, GstWebRTCSessionDescription *, gst_webrtc_session_description_new, (int, GstSDPMessage *)) \
    X(LIB_WEBRTC, void, gst_webrtc_session_description_free, (GstWebRTCSessionDescription *)) \
    X(LIB_APP, GstSample *, gst_app_sink_pull_sample, (GstElement *))

#define STORY_GST_MEMBER(library, result, name, parameters) result(*name) parameters;
static struct {
    STORY_GST_FUNCTIONS(STORY_GST_MEMBER)
} G;
#undef STORY_GST_MEMBER

/// The elements a session uses, and the Debian package of each.
static const char *const story_elements[][2] = {
    {"webrtcbin", "gstreamer1.0-plugins-bad"},   {"nicesrc", "gstreamer1.0-nice"},
    {"dtlssrtpdec", "gstreamer1.0-plugins-bad"}, {"srtpdec", "gstreamer1.0-plugins-bad"},
    {"rtpbin", "gstreamer1.0-plugins-good"},     {"rtph264depay", "gstreamer1.0-plugins-good"},
    {"h264parse", "gstreamer1.0-plugins-bad"},   {"mpegtsmux", "gstreamer1.0-plugins-bad"},
    {"rtpopusdepay", "gstreamer1.0-plugins-good"}, {"opusparse", "gstreamer1.0-plugins-bad"},
    {"appsink", "gstreamer1.0-plugins-base"},    {"fakesink", "libgstreamer1.0-0"},
};

static pthread_mutex_t story_load_lock = PTHREAD_MUTEX_INITIALIZER;
static int story_load_state; // 0: not tried, 1: loaded, -1: failed
static char story_load_error[512];
static int story_have_vp8; // rtpvp8depay and matroskamux (plugins-good) are there

static void story_copy(char *error, size_t capacity, const char *text) {
    if (error != NULL && capacity > 0)
        snprintf(error, capacity, "%s", text);
}

static void story_format(char *error, size_t capacity, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void story_format(char *error, size_t capacity, const char *format, ...) {
    if (error == NULL || capacity == 0)
        return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, capacity, format, arguments);
    va_end(arguments);
}

/// `error`'s message and frees it; "unknown error" when there is none.
static void story_take_gerror(GError *error, char *out, size_t capacity, const char *prefix) {
    story_format(out, capacity, "%s%s", prefix, error != NULL && error->message != NULL ? error->message : "unknown error");
    if (error != NULL)
        G.g_error_free(error);
}

static int story_load_locked(void) {
    void *handles[LIB_COUNT];
    for (int i = 0; i < LIB_COUNT; i++) {
        handles[i] = dlopen(story_library_files[i], RTLD_NOW | RTLD_LOCAL);
        if (handles[i] == NULL) {
            const char *why = dlerror();
            story_format(story_load_error, sizeof story_load_error,
                         "cannot open %s (%s): install libgstreamer1.0-0 and gstreamer1.0-plugins-base/-bad",
                         story_library_files[i], why != NULL ? why : "not found");
            return -1;
        }
    }
#define STORY_GST_RESOLVE(library, result, name, parameters) \
    if ((*(void **)&G.name = dlsym(handles[library], #name)) == NULL) { \
        story_format(story_load_error, sizeof story_load_error, "%s has no %s: GStreamer 1.20 or later is needed", \
                     story_library_files[library], #name); \
        return -1; \
    }
    STORY_GST_FUNCTIONS(STORY_GST_RESOLVE)
#undef STORY_GST_RESOLVE
    GError *error = NULL;
    if (!G.gst_init_check(NULL, NULL, &error)) {
        story_take_gerror(error, story_load_error, sizeof story_load_error, "gst_init failed: ");
        return -1;
    }
    for (size_t i = 0; i < sizeof story_elements / sizeof story_elements[0]; i++) {
        void *factory = G.gst_element_factory_find(story_elements[i][0]);
        if (factory == NULL) {
            story_format(story_load_error, sizeof story_load_error,
                         "%s has no element %s: install %s", G.gst_version_string(),
                         story_elements[i][0], story_elements[i][1]);
            return -1;
        }
        G.gst_object_unref(factory);
    }
    if (story_whep_certificate_load(story_load_error, sizeof story_load_error) != 0)
        return -1;
    void *vp8 = G.gst_element_factory_find("rtpvp8depay");
    void *matroska = G.gst_element_factory_find("matroskamux");
    story_have_vp8 = vp8 != NULL && matroska != NULL;
    if (vp8 != NULL)
        G.gst_object_unref(vp8);
    if (matroska != NULL)
        G.gst_object_unref(matroska);
    return 0;
}

int story_whep_load(char *error, size_t capacity) {
    pthread_mutex_lock(&story_load_lock);
    if (story_load_state == 0)
        story_load_state = story_load_locked() == 0 ? 1 : -1;
    int state = story_load_state;
    if (state < 0)
        story_copy(error, capacity, story_load_error);
    pthread_mutex_unlock(&story_load_lock);
    return state > 0 ? 0 : -1;
}

// MARK: - Time

static uint64_t story_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static struct timespec story_deadline(int timeout_ms) {
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    if (timeout_ms < 0)
        timeout_ms = 0;
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000L;
    }
    return deadline;
}

static void story_cond_init(pthread_cond_t *cond) {
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(cond, &attributes);
    pthread_condattr_destroy(&attributes);
}

// MARK: - Promises, waited for with a deadline

/// What a promise's change function wakes. Two owners: the waiting call and the promise (whose
/// destroy notify drops its reference when the promise is freed, perhaps after the call gave up).
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int changed;
    int references;
} story_waiter;

static void story_waiter_release(void *data) {
    story_waiter *waiter = data;
    if (__atomic_sub_fetch(&waiter->references, 1, __ATOMIC_ACQ_REL) == 0) {
        pthread_mutex_destroy(&waiter->lock);
        pthread_cond_destroy(&waiter->cond);
        free(waiter);
    }
}

static void story_promise_changed(GstPromise *promise, void *data) {
    (void)promise;
    story_waiter *waiter = data;
    pthread_mutex_lock(&waiter->lock);
    waiter->changed = 1;
    pthread_cond_broadcast(&waiter->cond);
    pthread_mutex_unlock(&waiter->lock);
}

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
    struct { void *instance; gulong id; } handlers[12];
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

static void story_connect(story_whep_session *session, void *instance, const char *signal, GCallback handler) {
    gulong id = G.g_signal_connect_data(instance, signal, handler, session, NULL, 0);
    if (id != 0 && session->handler_count < (int)(sizeof session->handlers / sizeof session->handlers[0])) {
        session->handlers[session->handler_count].instance = instance;
        session->handlers[session->handler_count].id = id;
        session->handler_count++;
    }
}

/// Ends the session with `message` unless it has ended already (the first cause is the one
/// reported). Called with `lock` held.
static void story_end_locked(story_whep_session *session, const char *message) {
    if (!session->ended) {
        session->ended = 1;
        snprintf(session->error, sizeof session->error, "%s", message);
    }
    pthread_cond_broadcast(&session->cond);
}

static void story_end(story_whep_session *session, const char *message) {
    pthread_mutex_lock(&session->lock);
    story_end_locked(session, message);
    pthread_mutex_unlock(&session->lock);
}

// MARK: Handlers (GStreamer's threads)

static void story_on_gathering_state(GObject *webrtc, void *pspec, void *data) {
    (void)pspec;
    story_whep_session *session = data;
    int state = 0;
    G.g_object_get(webrtc, "ice-gathering-state", &state, NULL);
    pthread_mutex_lock(&session->lock);
    session->gathering_state = state;
    pthread_cond_broadcast(&session->cond);
    pthread_mutex_unlock(&session->lock);
}

static void story_on_ice_state(GObject *webrtc, void *pspec, void *data) {
    (void)pspec;
    story_whep_session *session = data;
    int state = 0;
    G.g_object_get(webrtc, "ice-connection-state", &state, NULL);
    pthread_mutex_lock(&session->lock);
    session->ice_state = state;
    if (state == STORY_WHEP_ICE_FAILED)
        story_end_locked(session, "ICE failed: no candidate pair answered the connectivity checks "
                                  "(the server's candidates are unreachable from here)");
    else if (state == STORY_WHEP_ICE_CLOSED)
        story_end_locked(session, "ICE closed");
    pthread_cond_broadcast(&session->cond);
    pthread_mutex_unlock(&session->lock);
}

static void story_on_connection_state(GObject *webrtc, void *pspec, void *data) {
    (void)pspec;
    story_whep_session *session = data;
    int state = 0;
    G.g_object_get(webrtc, "connection-state", &state, NULL);
    pthread_mutex_lock(&session->lock);
    session->connection_state = state;
    if (state == STORY_WHEP_CONNECTION_FAILED)
        story_end_locked(session, session->ice_state == STORY_WHEP_ICE_FAILED
                                      ? "ICE failed: no candidate pair answered the connectivity checks "
                                        "(the server's candidates are unreachable from here)"
                                      : "WebRTC connection failed (DTLS handshake or ICE)");
    else if (state == STORY_WHEP_CONNECTION_CLOSED)
        story_end_locked(session, "WebRTC connection closed");
    pthread_cond_broadcast(&session->cond);
    pthread_mutex_unlock(&session->lock);
}

static void story_on_bus_error(GstBus *bus, GstMessage *message, void *data) {
    (void)bus;
    story_whep_session *session = data;
    GError *error = NULL;
    char *debug = NULL;
    G.gst_message_parse_error(message, &error, &debug);
    char text[512];
    // The debug string's last line names the element ("/GstPipeline:pipeline0/GstWebRTCBin:w").
    const char *where = debug != NULL ? strrchr(debug, '\n') : NULL;
    where = where != NULL ? where + 1 : debug;
    snprintf(text, sizeof text, "pipeline error: %s%s%s%s", error != NULL && error->message != NULL ? error->message : "unknown",
             where != NULL ? " (" : "", where != NULL ? where : "", where != NULL ? ")" : "");
    if (error != NULL)
        G.g_error_free(error);
    if (debug != NULL)
        G.g_free(debug);
    story_end(session, text);
}

static void story_on_bus_eos(GstBus *bus, GstMessage *message, void *data) {
    (void)bus;
    (void)message;
    story_end(data, "end of stream");
}

/// Every message is looked at where it is posted, then dropped: no one pops the bus. A sync
/// handler that returns GST_BUS_DROP owns the message and must unref it (gstbus.h); kept, each
/// message would keep its source element, and so the whole pipeline, alive after close.
static int story_bus_sync(GstBus *bus, GstMessage *message, void *data) {
    (void)data;
    G.gst_bus_sync_signal_handler(bus, message, NULL); // emits sync-message::<type>
    G.gst_mini_object_unref(message);
    return GST_BUS_DROP;
}

static int story_on_new_sample(GstElement *sink, void *data) {
    story_whep_session *session = data;
    GstSample *sample = G.gst_app_sink_pull_sample(sink);
    if (sample == NULL)
        return GST_FLOW_OK;
    GstBuffer *buffer = G.gst_sample_get_buffer(sample);
    size_t size = buffer != NULL ? G.gst_buffer_get_size(buffer) : 0;
    pthread_mutex_lock(&session->lock);
    if (size > STORY_QUEUE_CAPACITY) {
        size = 0;
    } else if (session->queue_length + size > STORY_QUEUE_CAPACITY) {
        if (session->container == STORY_CONTAINER_TS) {
            // Whole packets, oldest first: the reader's stream keeps its 188-byte phase.
            size_t excess = session->queue_length + size - STORY_QUEUE_CAPACITY;
            size_t drop = (excess + STORY_TS_PACKET - 1) / STORY_TS_PACKET * STORY_TS_PACKET;
            if (drop > session->queue_length)
                drop = session->queue_length;
            session->queue_head = (session->queue_head + drop) % STORY_QUEUE_CAPACITY;
            session->queue_length -= drop;
            session->bytes_dropped += drop;
        } else {
            // Matroska cannot lose bytes and go on.
            story_end_locked(session, "the reader fell 8 MiB behind the stream");
            size = 0;
        }
    }
    if (size > 0 && !session->ended) {
        size_t tail = (session->queue_head + session->queue_length) % STORY_QUEUE_CAPACITY;
        size_t first = STORY_QUEUE_CAPACITY - tail < size ? STORY_QUEUE_CAPACITY - tail : size;
        G.gst_buffer_extract(buffer, 0, session->queue + tail, first);
        if (first < size)
            G.gst_buffer_extract(buffer, first, session->queue, size - first);
        session->queue_length += size;
        pthread_cond_broadcast(&session->cond);
    }
    pthread_mutex_unlock(&session->lock);
    G.gst_mini_object_unref(sample);
    return GST_FLOW_OK;
}

static void story_on_sink_eos(GstElement *sink, void *data) {
    (void)sink;
    story_end(data, "end of stream");
}

/// Time in the jitter buffer, for video packets: noted on the way in by sequence number...
static void story_note_arrival(story_whep_session *session, GstBuffer *buffer, uint64_t now) {
    unsigned char header[4];
    if (G.gst_buffer_extract(buffer, 0, header, 4) != 4 || !session->video_pts[header[1] & 0x7f])
        return;
    uint16_t sequence = (uint16_t)(header[2] << 8 | header[3]);
    pthread_mutex_lock(&session->lock);
    session->arrivals[sequence % STORY_ARRIVALS].sequence = sequence;
    session->arrivals[sequence % STORY_ARRIVALS].valid = 1;
    session->arrivals[sequence % STORY_ARRIVALS].arrived_ns = now;
    pthread_mutex_unlock(&session->lock);
}

/// ...and averaged on the way out.
static void story_note_departure(story_whep_session *session, GstBuffer *buffer, uint64_t now) {
    unsigned char header[4];
    if (G.gst_buffer_extract(buffer, 0, header, 4) != 4 || !session->video_pts[header[1] & 0x7f])
        return;
    uint16_t sequence = (uint16_t)(header[2] << 8 | header[3]);
    pthread_mutex_lock(&session->lock);
    if (session->arrivals[sequence % STORY_ARRIVALS].valid && session->arrivals[sequence % STORY_ARRIVALS].sequence == sequence) {
        double held = (double)(now - session->arrivals[sequence % STORY_ARRIVALS].arrived_ns) / 1e6;
        session->depth_ms = session->depth_samples == 0 ? held : session->depth_ms + (held - session->depth_ms) / 16.0;
        session->depth_samples++;
        session->arrivals[sequence % STORY_ARRIVALS].valid = 0;
    }
    pthread_mutex_unlock(&session->lock);
}

static void story_probe_each(story_whep_session *session, GstPadProbeInfo *info, int type, int arriving) {
    uint64_t now = story_now_ns();
    if (type & GST_PAD_PROBE_TYPE_BUFFER) {
        GstBuffer *buffer = G.gst_pad_probe_info_get_buffer(info);
        if (buffer != NULL)
            (arriving ? story_note_arrival : story_note_departure)(session, buffer, now);
    } else {
        GstBufferList *list = G.gst_pad_probe_info_get_buffer_list(info);
        guint count = list != NULL ? G.gst_buffer_list_length(list) : 0;
        for (guint i = 0; i < count; i++)
            (arriving ? story_note_arrival : story_note_departure)(session, G.gst_buffer_list_get(list, i), now);
    }
}

static int story_probe_in_buffer(GstPad *pad, GstPadProbeInfo *info, void *data) {
    (void)pad;
    story_probe_each(data, info, GST_PAD_PROBE_TYPE_BUFFER, 1);
    return GST_PAD_PROBE_OK;
}
static int story_probe_in_list(GstPad *pad, GstPadProbeInfo *info, void *data) {
    (void)pad;
    story_probe_each(data, info, GST_PAD_PROBE_TYPE_BUFFER_LIST, 1);
    return GST_PAD_PROBE_OK;
}
static int story_probe_out_buffer(GstPad *pad, GstPadProbeInfo *info, void *data) {
    (void)pad;
    story_probe_each(data, info, GST_PAD_PROBE_TYPE_BUFFER, 0);
    return GST_PAD_PROBE_OK;
}
static int story_probe_out_list(GstPad *pad, GstPadProbeInfo *info, void *data) {
    (void)pad;
    story_probe_each(data, info, GST_PAD_PROBE_TYPE_BUFFER_LIST, 0);
    return GST_PAD_PROBE_OK;
}

/// The RTCP bandwidth, bits/s (rtpsession's `rtcp-rr-bandwidth`, with `rtcp-rs-bandwidth` 0: we
/// send no media). RFC 4585 allows one early RTCP packet (a NACK, a PLI) per regular report
/// interval, and at rtpsession's default (5 % of an assumed 64 kbit/s) that interval is 0.7 s
/// here: a second loss within it had its NACK held until its retransmission was too late
/// (measured: NACKs 190-260 ms after the loss, then a PLI). The interval is about
/// members x 100 bytes / bandwidth: with 5 members (us; the server's video, sound and their RTX)
/// at 64 kbit/s, 60 ms; our reports then cost ~13 kbit/s, under 1 % of a 2 Mbit/s stream.
#define STORY_RTCP_RR_BANDWIDTH 64000

/// Every element added anywhere in the pipeline (GstBin::deep-element-added, on GStreamer's
/// threads): rtpbin's rtpsession is tuned for fast feedback, and each DTLS transport takes our
/// ECDSA certificate (story_whep_certificate.h).
static void story_on_deep_element_added(GstElement *bin, GstElement *sub_bin, GstElement *element, void *data) {
    (void)bin;
    (void)sub_bin;
    story_whep_session *session = data;
    void *factory = G.gst_element_get_factory(element);
    char *name = factory != NULL ? G.gst_object_get_name(factory) : NULL; // the factory's name is the element's kind
    if (name != NULL && strcmp(name, "rtpsession") == 0) {
        // probation 0: a new SSRC's packets pass at once. rtpsource turns probation off for RTX
        // streams only when their encoding-name is "rtx", and webrtcbin's caps say "RTX" (1.22),
        // so the first retransmission waited in probation for a second one. SRTP authenticates
        // every packet, so probation guards against nothing here.
        G.g_object_set(element, "probation", 0u, "rtcp-rr-bandwidth", (int)STORY_RTCP_RR_BANDWIDTH,
                       "rtcp-rs-bandwidth", 0, NULL);
    } else if (name != NULL && strcmp(name, "dtlssrtpdec") == 0) {
        // Its dtlsdec owns the DTLS connection (the agent, so the certificate); the `pem` set
        // here gives it a new agent and connection. dtlssrtpenc takes that connection only when
        // it leaves NULL, which transportsendbin holds off until ICE has connected, long after
        // webrtcbin added this element (create-offer, gstreamer 1.22 gstwebrtcbin.c and
        // transportsendbin.c), so both use ours. It is also the certificate webrtcbin puts in
        // the offer (as a wrong fingerprint: story_whep_offer writes the right one).
        G.g_object_set(element, "pem", session->certificate.pem, NULL);
    }
    if (name != NULL)
        G.g_free(name);
}

static void story_on_new_jitterbuffer(GstElement *rtpbin, GstElement *jitterbuffer, guint session_id, guint ssrc, void *data) {
    (void)rtpbin;
    (void)session_id;
    (void)ssrc;
    GstPad *in = G.gst_element_get_static_pad(jitterbuffer, "sink");
    GstPad *out = G.gst_element_get_static_pad(jitterbuffer, "src");
    if (in != NULL) {
        G.gst_pad_add_probe(in, GST_PAD_PROBE_TYPE_BUFFER, story_probe_in_buffer, data, NULL);
        G.gst_pad_add_probe(in, GST_PAD_PROBE_TYPE_BUFFER_LIST, story_probe_in_list, data, NULL);
        G.gst_object_unref(in);
    }
    if (out != NULL) {
        G.gst_pad_add_probe(out, GST_PAD_PROBE_TYPE_BUFFER, story_probe_out_buffer, data, NULL);
        G.gst_pad_add_probe(out, GST_PAD_PROBE_TYPE_BUFFER_LIST, story_probe_out_list, data, NULL);
        G.gst_object_unref(out);
    }
}

/// How long a track may send nothing before the muxer is told it has a gap there. Above a
/// sound packet's 20-120 ms; it is also how long the other track waits, once, when one stops.
#define STORY_SILENT_TRACK_MS 200

/// Every buffer reaching the muxer (a probe on its sink pad, in that track's streaming thread).
/// mpegtsmux in GStreamer 1.22 is an aggregator without `get_next_time`, so it never times out
/// a silent input, live or not: it waits until every input has data, and when the sound stops,
/// the video stops with it (measured: no picture after the sound ended). So while one track is
/// silent, each buffer of the other sends the silent one a gap event stamped just after that
/// buffer: the muxer then has "data" on both inputs, takes the real buffer (the earlier), and
/// drops the gap. The silent track's own buffers, when they come back, end it.
/// The probe is on the depayloader bin's src pad, upstream of the muxer's pad, so a thread
/// sending a gap holds no muxer pad's stream lock: two tracks resuming together (after a
/// network stall) each take the other's muxer pad lock in turn, never both at once. (A probe
/// on the muxer pads themselves could deadlock there.) The silent pad's own thread is then
/// idle, or, if its buffer just came, its queue in the muxer is empty and it does not wait.
static int story_on_mux_buffer(GstPad *pad, GstPadProbeInfo *info, void *data) {
    story_whep_session *session = data;
    GstBuffer *buffer = G.gst_pad_probe_info_get_buffer(info);
    if (buffer == NULL)
        return GST_PAD_PROBE_OK;
    const story_buffer_layout *fields = (const story_buffer_layout *)buffer;
    GstClockTime stamp = fields->dts != STORY_CLOCK_TIME_NONE ? fields->dts : fields->pts; // what mpegtsmux orders by
    uint64_t now = story_now_ns();
    GstPad *silent = NULL;
    pthread_mutex_lock(&session->lock);
    int track = session->tracks[0].branch_pad == pad ? 0 : 1;
    int other = 1 - track;
    session->tracks[track].flowing = 1;
    session->tracks[track].last_wall_ns = now;
    if (track == 0)
        session->video_frames_waiting = 0;
    if (session->container == STORY_CONTAINER_TS && stamp != STORY_CLOCK_TIME_NONE && session->tracks[other].mux_pad != NULL &&
        session->tracks[other].flowing &&
        now - session->tracks[other].last_wall_ns > (uint64_t)STORY_SILENT_TRACK_MS * 1000000u) {
        silent = G.gst_object_ref(session->tracks[other].mux_pad);
        session->tracks[other].gaps++;
    }
    pthread_mutex_unlock(&session->lock);
    if (silent != NULL) {
        G.gst_pad_send_event(silent, G.gst_event_new_gap(stamp + 1, STORY_CLOCK_TIME_NONE));
        G.gst_object_unref(silent);
    }
    return GST_PAD_PROBE_OK;
}

/// Pictures that may arrive without one reaching the muxer before a keyframe is asked for, and
/// how often it is asked for again while none does.
#define STORY_KEYFRAME_WAIT_PICTURES 3
#define STORY_KEYFRAME_REQUEST_EVERY_MS 500

/// Every video RTP packet leaving webrtcbin (a probe on its pad, in the jitter buffer's thread).
/// rtph264depay asks for a keyframe (a PLI) only when the jitter buffer reports a loss, and
/// with wait-for-keyframe it drops every picture until one comes. So when the stream's first
/// keyframe is lost (the jitter buffer cannot see a gap before the first packet), or a server
/// relays a stream from the middle of a GOP, or a PLI itself was lost, nothing would ask again
/// and the picture would stay black or frozen until the publisher's next keyframe (8 s for
/// aiortc; measured: no video at all in an 8 s run whose first packet was dropped). Here, when
/// STORY_KEYFRAME_WAIT_PICTURES pictures (RTP timestamps) have come in since the last one
/// reached the muxer, a keyframe is asked for, and again every STORY_KEYFRAME_REQUEST_EVERY_MS
/// until one does: a GstForceKeyUnit event sent upstream from this pad, as the depayloader
/// sends its own, which rtpptdemux and rtpssrcdemux address and rtpsession turns into a PLI.
static int story_on_video_rtp(GstPad *pad, GstPadProbeInfo *info, void *data) {
    story_whep_session *session = data;
    GstBuffer *buffer = G.gst_pad_probe_info_get_buffer(info);
    unsigned char header[8];
    if (buffer == NULL || G.gst_buffer_extract(buffer, 0, header, 8) != 8)
        return GST_PAD_PROBE_OK;
    uint32_t timestamp = (uint32_t)header[4] << 24 | (uint32_t)header[5] << 16 | (uint32_t)header[6] << 8 | header[7];
    uint64_t now = story_now_ns();
    int request = 0;
    pthread_mutex_lock(&session->lock);
    if (timestamp != session->video_rtp_timestamp || session->video_frames_waiting == 0) {
        session->video_rtp_timestamp = timestamp;
        session->video_frames_waiting++;
    }
    if (session->video_frames_waiting > STORY_KEYFRAME_WAIT_PICTURES &&
        now - session->keyframe_requested_ns >= (uint64_t)STORY_KEYFRAME_REQUEST_EVERY_MS * 1000000u) {
        session->keyframe_requested_ns = now;
        session->keyframe_requests++;
        request = 1;
    }
    pthread_mutex_unlock(&session->lock);
    if (request) {
        GstStructure *structure = G.gst_structure_from_string("GstForceKeyUnit, all-headers=(boolean)true", NULL);
        if (structure != NULL)
            G.gst_pad_send_event(pad, G.gst_event_new_custom(GST_EVENT_CUSTOM_UPSTREAM, structure));
    }
    return GST_PAD_PROBE_OK;
}

/// The first caps on a branch's output: the muxer's pad for it is requested and linked now,
/// before the caps go on, so they reach the muxer ahead of any buffer.
static int story_on_branch_event(GstPad *pad, GstPadProbeInfo *info, void *data) {
    story_whep_session *session = data;
    void *event = G.gst_pad_probe_info_get_event(info);
    if (event == NULL || !G.gst_event_has_name(event, "GstEventCaps"))
        return GST_PAD_PROBE_OK;
    pthread_mutex_lock(&session->lock);
    int track = session->tracks[0].branch_pad == pad ? 0 : 1;
    const char *template = session->tracks[track].mux_template;
    int wanted = session->tracks[track].mux_pad == NULL && template != NULL && session->mux != NULL;
    pthread_mutex_unlock(&session->lock);
    if (!wanted)
        return GST_PAD_PROBE_REMOVE;
    GstPad *mux_pad = G.gst_element_request_pad_simple(session->mux, template);
    int linked = mux_pad != NULL ? G.gst_pad_link(pad, mux_pad) : -1;
    if (linked != GST_PAD_LINK_OK) {
        if (mux_pad != NULL)
            G.gst_object_unref(mux_pad);
        char text[160];
        snprintf(text, sizeof text, "%s stream: cannot link the depayloader to the muxer (%d)", track == 0 ? "video" : "sound", linked);
        story_end(session, text);
        return GST_PAD_PROBE_REMOVE;
    }
    pthread_mutex_lock(&session->lock);
    session->tracks[track].mux_pad = mux_pad; // the session keeps the reference
    pthread_mutex_unlock(&session->lock);
    return GST_PAD_PROBE_REMOVE;
}

/// Links `pad` (webrtcbin's, a new stream) to `description`'s bin and that to the muxer's
/// `mux_pad_template` pad (or to nothing: a fakesink description). The bin goes to PLAYING
/// before the pad is linked, so the first buffer finds it ready.
static int story_link_branch(story_whep_session *session, GstPad *pad, const char *description,
                             const char *mux_pad_template, int track, char *error, size_t capacity) {
    GError *parse_error = NULL;
    GstElement *bin = G.gst_parse_bin_from_description(description, 1, &parse_error);
    if (bin == NULL || parse_error != NULL) {
        story_take_gerror(parse_error, error, capacity, "cannot build the depayloader: ");
        if (bin != NULL)
            G.gst_object_unref(bin);
        return -1;
    }
    if (!G.gst_bin_add(session->pipeline, bin)) {
        story_copy(error, capacity, "cannot add the depayloader");
        G.gst_object_unref(bin);
        return -1;
    }
    if (mux_pad_template != NULL) {
        GstPad *out = G.gst_element_get_static_pad(bin, "src");
        if (out == NULL) {
            story_copy(error, capacity, "the depayloader has no output");
            return -1;
        }
        pthread_mutex_lock(&session->lock);
        session->tracks[track].branch_pad = out; // the session keeps the reference
        session->tracks[track].mux_template = mux_pad_template;
        pthread_mutex_unlock(&session->lock);
        // The muxer's pad is asked for when the branch's caps come, not now: mpegtsmux makes
        // every sink pad's stream at its first buffer, and a pad without caps then fails the
        // whole session ("Could not create handler for stream"), which a sound branch whose
        // caps came after the first picture did, now and then. A pad added later is made at
        // its own first buffer.
        G.gst_pad_add_probe(out, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, story_on_branch_event, session, NULL);
        G.gst_pad_add_probe(out, GST_PAD_PROBE_TYPE_BUFFER, story_on_mux_buffer, session, NULL);
        if (track == 0)
            G.gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, story_on_video_rtp, session, NULL);
    }
    G.gst_element_sync_state_with_parent(bin);
    GstPad *in = G.gst_element_get_static_pad(bin, "sink");
    int linked = in != NULL ? G.gst_pad_link(pad, in) : -1;
    if (in != NULL)
        G.gst_object_unref(in);
    if (linked != GST_PAD_LINK_OK) {
        story_format(error, capacity, "cannot link webrtcbin's stream to the depayloader (%d)", linked);
        return -1;
    }
    return 0;
}

static void story_on_pad_added(GstElement *webrtc, GstPad *pad, void *data) {
    (void)webrtc;
    story_whep_session *session = data;
    GstCaps *caps = G.gst_pad_get_current_caps(pad);
    if (caps == NULL)
        caps = G.gst_pad_query_caps(pad, NULL);
    const GstStructure *structure = caps != NULL && G.gst_caps_get_size(caps) > 0 ? G.gst_caps_get_structure(caps, 0) : NULL;
    const char *media = structure != NULL ? G.gst_structure_get_string(structure, "media") : NULL;
    const char *encoding = structure != NULL ? G.gst_structure_get_string(structure, "encoding-name") : NULL;
    int payload = -1;
    if (structure != NULL)
        G.gst_structure_get_int(structure, "payload", &payload);
    int video = media != NULL && strcmp(media, "video") == 0;
    int audio = media != NULL && strcmp(media, "audio") == 0;
    int ts = session->container == STORY_CONTAINER_TS;

    const char *description = "fakesink sync=false async=false";
    const char *mux_pad = NULL;
    pthread_mutex_lock(&session->lock);
    if (video && encoding != NULL && !session->linked_video) {
        if (strcmp(encoding, "H264") == 0 && ts) {
            description = "rtph264depay request-keyframe=true wait-for-keyframe=true ! h264parse config-interval=-1 "
                          "! capsfilter caps=video/x-h264,stream-format=byte-stream,alignment=au";
            mux_pad = "sink_%d";
        } else if (strcmp(encoding, "VP8") == 0 && session->container == STORY_CONTAINER_MATROSKA) {
            description = "rtpvp8depay request-keyframe=true wait-for-keyframe=true";
            mux_pad = "video_%u";
        }
        if (mux_pad != NULL) {
            session->linked_video = 1;
            session->video_pt = payload;
            snprintf(session->video_codec, sizeof session->video_codec, "%s", encoding);
        }
    } else if (audio && encoding != NULL && strcmp(encoding, "OPUS") == 0 && ts && session->want_audio && !session->linked_audio) {
        description = "rtpopusdepay ! opusparse";
        mux_pad = "sink_%d";
        session->linked_audio = 1;
    }
    pthread_mutex_unlock(&session->lock);
    if (caps != NULL)
        G.gst_mini_object_unref(caps);

    char error[256];
    if (story_link_branch(session, pad, description, mux_pad, video ? 0 : 1, error, sizeof error) != 0) {
        char text[320];
        snprintf(text, sizeof text, "%s stream (%s): %s", video ? "video" : audio ? "sound" : "unknown",
                 encoding != NULL ? encoding : "?", error);
        story_end(session, text);
    }
}

// MARK: - API

static void story_release(story_whep_session *session) {
    for (int i = 0; i < session->handler_count; i++)
        G.g_signal_handler_disconnect(session->handlers[i].instance, session->handlers[i].id);
    session->handler_count = 0;
    if (session->bus != NULL) {
        G.gst_bus_set_sync_handler(session->bus, NULL, NULL, NULL);
        G.gst_object_unref(session->bus);
    }
    for (int i = 0; i < 2; i++) {
        if (session->tracks[i].mux_pad != NULL)
            G.gst_object_unref(session->tracks[i].mux_pad);
        if (session->tracks[i].branch_pad != NULL)
            G.gst_object_unref(session->tracks[i].branch_pad);
    }
    if (session->rtpbin != NULL)
        G.gst_object_unref(session->rtpbin);
    if (session->mux != NULL)
        G.gst_object_unref(session->mux);
    if (session->appsink != NULL)
        G.gst_object_unref(session->appsink);
    if (session->webrtc != NULL)
        G.gst_object_unref(session->webrtc);
    if (session->pipeline != NULL)
        G.gst_object_unref(session->pipeline);
    pthread_mutex_destroy(&session->lock);
    pthread_cond_destroy(&session->cond);
    story_whep_certificate_free(&session->certificate);
    free(session->queue);
    free(session);
}

/// Adds a recvonly transceiver for `caps`, with NACK (and so RTX, PLI and FIR) on.
static int story_add_transceiver(story_whep_session *session, const char *caps_text, char *error, size_t capacity) {
    GstCaps *caps = G.gst_caps_from_string(caps_text);
    if (caps == NULL) {
        story_format(error, capacity, "bad caps %s", caps_text);
        return -1;
    }
    GObject *transceiver = NULL;
    G.g_signal_emit_by_name(session->webrtc, "add-transceiver", GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_RECVONLY, caps, &transceiver);
    G.gst_mini_object_unref(caps);
    if (transceiver == NULL) {
        story_format(error, capacity, "webrtcbin refused a transceiver for %s", caps_text);
        return -1;
    }
    G.g_object_set(transceiver, "do-nack", 1, NULL);
    G.g_object_unref(transceiver);
    return 0;
}

story_whep_session *story_whep_create(const story_whep_options *options, char *error, size_t capacity) {
    if (story_whep_load(error, capacity) != 0)
        return NULL;
    story_whep_options defaults = {0, 1, 0, NULL};
    if (options == NULL)
        options = &defaults;
    story_whep_session *session = calloc(1, sizeof *session);
    unsigned char *queue = malloc(STORY_QUEUE_CAPACITY);
    if (session == NULL || queue == NULL) {
        free(session);
        free(queue);
        story_copy(error, capacity, "out of memory");
        return NULL;
    }
    session->queue = queue;
    pthread_mutex_init(&session->lock, NULL);
    story_cond_init(&session->cond);
    session->jitter_latency_ms = options->jitter_latency_ms > 0 ? options->jitter_latency_ms : 200;
    session->want_audio = options->want_audio != 0;
    session->video_pt = -1;
    if (story_whep_certificate_make(&session->certificate, error, capacity) != 0) {
        story_release(session);
        return NULL;
    }

    char launch[256];
    snprintf(launch, sizeof launch,
             "webrtcbin name=w bundle-policy=max-bundle latency=%d "
             "appsink name=sink sync=false async=false emit-signals=true max-buffers=64",
             session->jitter_latency_ms);
    GError *parse_error = NULL;
    session->pipeline = G.gst_parse_launch(launch, &parse_error);
    if (session->pipeline == NULL || parse_error != NULL) {
        story_take_gerror(parse_error, error, capacity, "cannot build the pipeline: ");
        story_release(session);
        return NULL;
    }
    session->webrtc = G.gst_bin_get_by_name(session->pipeline, "w");
    session->appsink = G.gst_bin_get_by_name(session->pipeline, "sink");
    session->rtpbin = session->webrtc != NULL ? G.gst_bin_get_by_name(session->webrtc, "rtpbin") : NULL;
    if (session->webrtc == NULL || session->appsink == NULL) {
        story_copy(error, capacity, "the pipeline has no webrtcbin or appsink");
        story_release(session);
        return NULL;
    }

    // The ICE agent: no UPnP (it would ask the LAN's router to open ports; SSDP multicast), and
    // one local address if asked.
    GObject *ice = NULL;
    G.g_object_get(session->webrtc, "ice-agent", &ice, NULL);
    if (ice != NULL) {
        GObject *agent = NULL;
        G.g_object_get(ice, "agent", &agent, NULL);
        if (agent != NULL) {
            G.g_object_set(agent, "upnp", 0, NULL);
            G.g_object_unref(agent);
        }
        if (options->local_address != NULL && options->local_address[0] != '\0') {
            gboolean added = 0;
            G.g_signal_emit_by_name(ice, "add-local-ip-address", options->local_address, &added);
            if (!added) {
                G.g_object_unref(ice);
                story_format(error, capacity, "ICE cannot use the local address %s", options->local_address);
                story_release(session);
                return NULL;
            }
        }
        G.g_object_unref(ice);
    }

    char video_caps[512];
    snprintf(video_caps, sizeof video_caps,
             "application/x-rtp,media=video,encoding-name=H264,payload=102,clock-rate=90000,"
             "packetization-mode=(string)1,profile-level-id=(string)42e01f,level-asymmetry-allowed=(string)1%s",
             options->want_vp8 && story_have_vp8 ? ";application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000" : "");
    if (story_add_transceiver(session, video_caps, error, capacity) != 0 ||
        (session->want_audio &&
         story_add_transceiver(session,
                               "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000,"
                               "encoding-params=(string)2,minptime=(string)10,useinbandfec=(string)1",
                               error, capacity) != 0)) {
        story_release(session);
        return NULL;
    }

    story_connect(session, session->pipeline, "deep-element-added", (GCallback)story_on_deep_element_added);
    story_connect(session, session->webrtc, "pad-added", (GCallback)story_on_pad_added);
    story_connect(session, session->webrtc, "notify::ice-gathering-state", (GCallback)story_on_gathering_state);
    story_connect(session, session->webrtc, "notify::ice-connection-state", (GCallback)story_on_ice_state);
    story_connect(session, session->webrtc, "notify::connection-state", (GCallback)story_on_connection_state);
    story_connect(session, session->appsink, "new-sample", (GCallback)story_on_new_sample);
    story_connect(session, session->appsink, "eos", (GCallback)story_on_sink_eos);
    if (session->rtpbin != NULL)
        story_connect(session, session->rtpbin, "new-jitterbuffer", (GCallback)story_on_new_jitterbuffer);
    session->bus = G.gst_element_get_bus(session->pipeline);
    if (session->bus != NULL) {
        G.gst_bus_set_sync_handler(session->bus, story_bus_sync, NULL, NULL);
        story_connect(session, session->bus, "sync-message::error", (GCallback)story_on_bus_error);
        story_connect(session, session->bus, "sync-message::eos", (GCallback)story_on_bus_eos);
    }

    if (G.gst_element_set_state(session->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
        pthread_mutex_lock(&session->lock);
        story_format(error, capacity, "the pipeline would not start%s%s", session->ended ? ": " : "", session->ended ? session->error : "");
        pthread_mutex_unlock(&session->lock);
        G.gst_element_set_state(session->pipeline, GST_STATE_NULL);
        story_release(session);
        return NULL;
    }
    return session;
}

/// Emits `signal` on webrtcbin with `argument` (NULL for none) and a promise, and waits for its
/// reply until `deadline` or an interrupt. Returns the promise (the caller unrefs it) when
/// replied, else NULL with a message in `error`.
static GstPromise *story_call(story_whep_session *session, const char *signal, void *argument, const struct timespec *deadline,
                              char *error, size_t capacity) {
    story_waiter *waiter = calloc(1, sizeof *waiter);
    if (waiter == NULL) {
        story_copy(error, capacity, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&waiter->lock, NULL);
    story_cond_init(&waiter->cond);
    waiter->references = 2;
    GstPromise *promise = G.gst_promise_new_with_change_func(story_promise_changed, waiter, story_waiter_release);

    pthread_mutex_lock(&session->lock);
    int interrupted = session->interrupted;
    if (!interrupted)
        session->pending = promise;
    pthread_mutex_unlock(&session->lock);
    if (interrupted) {
        story_copy(error, capacity, "interrupted");
        G.gst_promise_interrupt(promise);
        G.gst_mini_object_unref(promise);
        story_waiter_release(waiter);
        return NULL;
    }

    G.g_signal_emit_by_name(session->webrtc, signal, argument, promise);

    pthread_mutex_lock(&waiter->lock);
    int timed_out = 0;
    while (!waiter->changed && !timed_out)
        timed_out = pthread_cond_timedwait(&waiter->cond, &waiter->lock, deadline) == ETIMEDOUT;
    pthread_mutex_unlock(&waiter->lock);

    // From here story_whep_interrupt no longer sees the promise; whether it interrupted it
    // before is read after, so the promise is interrupted at most once.
    pthread_mutex_lock(&session->lock);
    session->pending = NULL;
    interrupted = session->interrupted;
    pthread_mutex_unlock(&session->lock);
    pthread_mutex_lock(&waiter->lock);
    int changed = waiter->changed;
    pthread_mutex_unlock(&waiter->lock);

    int result = changed ? G.gst_promise_wait(promise) : GST_PROMISE_RESULT_PENDING;
    if (result == GST_PROMISE_RESULT_REPLIED) {
        story_waiter_release(waiter);
        return promise;
    }
    if (result == GST_PROMISE_RESULT_PENDING)
        G.gst_promise_interrupt(promise); // webrtcbin's late reply, if any, is then dropped
    if (interrupted)
        story_copy(error, capacity, "interrupted");
    else if (!changed)
        story_format(error, capacity, "webrtcbin did not answer %s in time", signal);
    else
        story_format(error, capacity, "webrtcbin dropped %s", signal);
    G.gst_mini_object_unref(promise);
    story_waiter_release(waiter);
    return NULL;
}

/// The reply's "error" (set-*-description, create-offer), as text; NULL when there is none.
static int story_reply_error(const GstStructure *reply, char *error, size_t capacity, const char *prefix) {
    if (reply == NULL)
        return 0;
    const GValue *value = G.gst_structure_get_value(reply, "error");
    if (value == NULL)
        return 0;
    GError *gerror = G.g_value_get_boxed(value); // borrowed: the reply owns it
    story_format(error, capacity, "%s%s", prefix, gerror != NULL && gerror->message != NULL ? gerror->message : "rejected");
    return -1;
}

int story_whep_offer(story_whep_session *session, char **sdp, int timeout_ms, char *error, size_t capacity) {
    *sdp = NULL;
    struct timespec deadline = story_deadline(timeout_ms);
    GstPromise *offered = story_call(session, "create-offer", NULL, &deadline, error, capacity);
    if (offered == NULL)
        return -1;
    const GstStructure *reply = G.gst_promise_get_reply(offered);
    const GValue *value = reply != NULL ? G.gst_structure_get_value(reply, "offer") : NULL;
    GstWebRTCSessionDescription *offer = value != NULL ? G.g_value_get_boxed(value) : NULL;
    if (offer == NULL) {
        if (story_reply_error(reply, error, capacity, "webrtcbin could not make an offer: ") == 0)
            story_copy(error, capacity, "webrtcbin made no offer");
        G.gst_mini_object_unref(offered);
        return -1;
    }
    GstPromise *set = story_call(session, "set-local-description", offer, &deadline, error, capacity);
    G.gst_mini_object_unref(offered); // and `offer`, which it owned
    if (set == NULL)
        return -1;
    int rejected = story_reply_error(G.gst_promise_get_reply(set), error, capacity, "webrtcbin refused its own offer: ");
    G.gst_mini_object_unref(set);
    if (rejected)
        return -1;

    // Non-trickle: the offer goes out with every candidate.
    pthread_mutex_lock(&session->lock);
    int timed_out = 0;
    while (session->gathering_state != GST_WEBRTC_ICE_GATHERING_STATE_COMPLETE && !session->interrupted && !session->ended && !timed_out)
        timed_out = pthread_cond_timedwait(&session->cond, &session->lock, &deadline) == ETIMEDOUT;
    int complete = session->gathering_state == GST_WEBRTC_ICE_GATHERING_STATE_COMPLETE;
    if (!complete)
        story_format(error, capacity, "%s", session->interrupted ? "interrupted"
                                            : session->ended    ? session->error
                                                                : "ICE gathering did not complete in time");
    pthread_mutex_unlock(&session->lock);
    if (!complete)
        return -1;

    GstWebRTCSessionDescription *local = NULL;
    G.g_object_get(session->webrtc, "local-description", &local, NULL);
    if (local == NULL) {
        story_copy(error, capacity, "webrtcbin has no local description");
        return -1;
    }
    char *text = G.gst_sdp_message_as_text(((story_webrtc_description_layout *)local)->sdp);
    G.gst_webrtc_session_description_free(local);
    if (text == NULL) {
        story_copy(error, capacity, "webrtcbin's offer has no text");
        return -1;
    }
    *sdp = story_whep_sdp_with_fingerprint(text, session->certificate.fingerprint);
    G.g_free(text);
    if (*sdp == NULL) {
        story_copy(error, capacity, "out of memory");
        return -1;
    }
    return 0;
}

/// The answer's video codec, from its video m-line: the first payload type with an rtpmap
/// we take (H264, VP8), and every payload type of the m-line, for the depth probes.
static const char *story_answer_video(const char *sdp, unsigned char video_pts[128]) {
    const char *line = sdp;
    const char *codec = NULL;
    int in_video = 0, first_pt = -1;
    while (line != NULL && *line != '\0') {
        const char *end = strpbrk(line, "\r\n");
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        if (length >= 2 && line[0] == 'm' && line[1] == '=') {
            in_video = length > 8 && strncmp(line, "m=video ", 8) == 0;
            if (in_video && codec == NULL) {
                // m=video <port> <proto> <pt> <pt>...
                const char *p = line + 8;
                int port = atoi(p);
                int field = 0;
                while (p < line + length) {
                    while (p < line + length && *p != ' ')
                        p++;
                    while (p < line + length && *p == ' ')
                        p++;
                    field++;
                    if (field >= 2 && p < line + length) {
                        int pt = atoi(p);
                        if (pt >= 0 && pt < 128 && port != 0) {
                            video_pts[pt] = 1;
                            if (first_pt < 0)
                                first_pt = pt;
                        }
                    }
                }
            }
        } else if (in_video && codec == NULL && length > 9 && strncmp(line, "a=rtpmap:", 9) == 0) {
            int pt = atoi(line + 9);
            const char *name = memchr(line, ' ', length);
            if (pt == first_pt && name != NULL) {
                if (strncasecmp(name + 1, "H264/", 5) == 0)
                    codec = "H264";
                else if (strncasecmp(name + 1, "VP8/", 4) == 0)
                    codec = "VP8";
                else
                    codec = "other";
            }
        }
        line = end != NULL ? end + 1 : NULL;
        while (line != NULL && (*line == '\r' || *line == '\n'))
            line++;
    }
    return codec;
}

int story_whep_answer(story_whep_session *session, const char *sdp, char *error, size_t capacity) {
    if (sdp == NULL || sdp[0] == '\0') {
        story_copy(error, capacity, "the answer is empty");
        return -1;
    }
    unsigned char video_pts[128] = {0};
    const char *codec = story_answer_video(sdp, video_pts);
    if (codec == NULL) {
        story_copy(error, capacity, "the answer accepts no video (no video m-line with a payload type)");
        return -1;
    }
    if (strcmp(codec, "other") == 0) {
        story_copy(error, capacity, "the answer's video codec is neither H.264 nor VP8");
        return -1;
    }
    int matroska = strcmp(codec, "VP8") == 0;
    if (matroska && !story_have_vp8) {
        story_copy(error, capacity, "the answer picked VP8, and rtpvp8depay or matroskamux is missing (gstreamer1.0-plugins-good)");
        return -1;
    }

    GstSDPMessage *message = NULL;
    if (G.gst_sdp_message_new(&message) != GST_SDP_OK || message == NULL) {
        story_copy(error, capacity, "out of memory");
        return -1;
    }
    if (G.gst_sdp_message_parse_buffer((const unsigned char *)sdp, (guint)strlen(sdp), message) != GST_SDP_OK) {
        G.gst_sdp_message_free(message);
        story_copy(error, capacity, "the answer is not SDP");
        return -1;
    }

    // The muxer, before any stream can arrive (streams arrive after set-remote-description).
    if (session->mux == NULL) {
        GstElement *mux = matroska ? G.gst_element_factory_make("matroskamux", NULL) : G.gst_element_factory_make("mpegtsmux", NULL);
        if (mux == NULL) {
            G.gst_sdp_message_free(message);
            story_copy(error, capacity, "cannot make the muxer");
            return -1;
        }
        if (matroska)
            G.g_object_set(mux, "streamable", 1, NULL);
        G.gst_bin_add(session->pipeline, mux); // takes the floating reference
        if (!G.gst_element_link(mux, session->appsink)) {
            G.gst_sdp_message_free(message);
            story_copy(error, capacity, "cannot link the muxer to the appsink");
            return -1;
        }
        G.gst_element_sync_state_with_parent(mux);
        pthread_mutex_lock(&session->lock);
        session->mux = G.gst_object_ref(mux); // the pipeline owns it; the session keeps a reference too
        memcpy(session->video_pts, video_pts, sizeof video_pts);
        session->container = matroska ? STORY_CONTAINER_MATROSKA : STORY_CONTAINER_TS;
        pthread_mutex_unlock(&session->lock);
    }

    GstWebRTCSessionDescription *answer = G.gst_webrtc_session_description_new(GST_WEBRTC_SDP_TYPE_ANSWER, message);
    struct timespec deadline = story_deadline(10000);
    GstPromise *set = story_call(session, "set-remote-description", answer, &deadline, error, capacity);
    G.gst_webrtc_session_description_free(answer); // and `message`
    if (set == NULL)
        return -1;
    int rejected = story_reply_error(G.gst_promise_get_reply(set), error, capacity, "webrtcbin rejected the answer: ");
    G.gst_mini_object_unref(set);
    return rejected ? -1 : 0;
}

long story_whep_read(story_whep_session *session, unsigned char *buffer, size_t capacity, int timeout_ms) {
    struct timespec deadline = story_deadline(timeout_ms);
    pthread_mutex_lock(&session->lock);
    int timed_out = timeout_ms <= 0;
    while (session->queue_length == 0 && !session->interrupted && !session->ended && !timed_out)
        timed_out = pthread_cond_timedwait(&session->cond, &session->lock, &deadline) == ETIMEDOUT;
    long result;
    if (session->interrupted) {
        result = -1;
    } else if (session->queue_length > 0) {
        size_t count = session->queue_length < capacity ? session->queue_length : capacity;
        size_t first = STORY_QUEUE_CAPACITY - session->queue_head < count ? STORY_QUEUE_CAPACITY - session->queue_head : count;
        memcpy(buffer, session->queue + session->queue_head, first);
        if (first < count)
            memcpy(buffer + first, session->queue, count - first);
        session->queue_head = (session->queue_head + count) % STORY_QUEUE_CAPACITY;
        session->queue_length -= count;
        result = (long)count;
    } else {
        result = session->ended ? -1 : 0;
    }
    pthread_mutex_unlock(&session->lock);
    return result;
}

const char *story_whep_error(story_whep_session *session) {
    // `error` is written once (story_end_locked, and "interrupted" below), before the flag that
    // makes a reader look, so the pointer's text is stable once a read has returned -1.
    return session->error;
}

/// Adds the counters of one `inbound-rtp` structure (get-stats) to `status`.
static void story_add_inbound(const GstStructure *stats, story_whep_status *status) {
    uint64_t packets = 0;
    int64_t lost = 0;
    guint count = 0;
    if (G.gst_structure_get_uint64(stats, "packets-received", &packets))
        status->packets_received += packets;
    if (G.gst_structure_get_int64(stats, "packets-lost", &lost) && lost > 0)
        status->packets_lost += (unsigned long long)lost;
    if (G.gst_structure_get_uint(stats, "nack-count", &count))
        status->nacks_sent += count;
    if (G.gst_structure_get_uint(stats, "pli-count", &count))
        status->plis_sent += count;
    if (G.gst_structure_get_uint(stats, "fir-count", &count))
        status->plis_sent += count;
    const GValue *value = G.gst_structure_get_value(stats, "gst-rtpjitterbuffer-stats");
    if (value != NULL && G.g_type_check_value_holds(value, G.gst_structure_get_type())) {
        const GstStructure *jitterbuffer = G.gst_value_get_structure(value);
        if (G.gst_structure_get_uint64(jitterbuffer, "rtx-count", &packets))
            status->rtx_requested += packets;
        if (G.gst_structure_get_uint64(jitterbuffer, "rtx-success-count", &packets))
            status->rtx_recovered += packets;
    }
}

void story_whep_status_get(story_whep_session *session, story_whep_status *status) {
    memset(status, 0, sizeof *status);
    // Counters first, outside the lock: get-stats is answered on webrtcbin's thread.
    story_waiter *waiter = calloc(1, sizeof *waiter);
    int have_counters = 0;
    if (waiter != NULL) {
        pthread_mutex_init(&waiter->lock, NULL);
        story_cond_init(&waiter->cond);
        waiter->references = 2;
        GstPromise *promise = G.gst_promise_new_with_change_func(story_promise_changed, waiter, story_waiter_release);
        G.g_signal_emit_by_name(session->webrtc, "get-stats", NULL, promise);
        struct timespec deadline = story_deadline(500);
        pthread_mutex_lock(&waiter->lock);
        int timed_out = 0;
        while (!waiter->changed && !timed_out)
            timed_out = pthread_cond_timedwait(&waiter->cond, &waiter->lock, &deadline) == ETIMEDOUT;
        int changed = waiter->changed;
        pthread_mutex_unlock(&waiter->lock);
        if (changed && G.gst_promise_wait(promise) == GST_PROMISE_RESULT_REPLIED) {
            const GstStructure *reply = G.gst_promise_get_reply(promise);
            int fields = reply != NULL ? G.gst_structure_n_fields(reply) : 0;
            for (int i = 0; i < fields; i++) {
                const GValue *value = G.gst_structure_get_value(reply, G.gst_structure_nth_field_name(reply, (guint)i));
                if (value == NULL || !G.g_type_check_value_holds(value, G.gst_structure_get_type()))
                    continue;
                const GstStructure *stats = G.gst_value_get_structure(value);
                if (stats != NULL && strcmp(G.gst_structure_get_name(stats), "inbound-rtp") == 0)
                    story_add_inbound(stats, status);
            }
            have_counters = 1;
        } else if (!changed) {
            G.gst_promise_interrupt(promise);
        }
        G.gst_mini_object_unref(promise);
        story_waiter_release(waiter);
    }
    pthread_mutex_lock(&session->lock);
    if (have_counters) {
        session->last_counters = *status;
    } else {
        status->packets_received = session->last_counters.packets_received;
        status->packets_lost = session->last_counters.packets_lost;
        status->nacks_sent = session->last_counters.nacks_sent;
        status->plis_sent = session->last_counters.plis_sent;
        status->rtx_requested = session->last_counters.rtx_requested;
        status->rtx_recovered = session->last_counters.rtx_recovered;
    }
    status->ice_state = session->ice_state;
    status->connection_state = session->connection_state;
    status->jitter_latency_ms = session->jitter_latency_ms;
    status->jitter_depth_ms = session->depth_samples > 0 ? session->depth_ms : (double)session->jitter_latency_ms;
    status->bytes_dropped = session->bytes_dropped;
    status->video_pt = session->video_pt;
    snprintf(status->video_codec, sizeof status->video_codec, "%s", session->video_codec);
    snprintf(status->container, sizeof status->container, "%s",
             session->container == STORY_CONTAINER_TS         ? "mpegts"
             : session->container == STORY_CONTAINER_MATROSKA ? "matroska"
                                                              : "");
    pthread_mutex_unlock(&session->lock);
}

void story_whep_interrupt(story_whep_session *session) {
    pthread_mutex_lock(&session->lock);
    if (!session->interrupted) {
        session->interrupted = 1;
        if (!session->ended) {
            session->ended = 1;
            snprintf(session->error, sizeof session->error, "interrupted");
        }
        if (session->pending != NULL)
            G.gst_promise_interrupt(session->pending); // wakes story_call through its waiter
        pthread_cond_broadcast(&session->cond);
    }
    pthread_mutex_unlock(&session->lock);
}

void story_whep_close(story_whep_session *session) {
    if (session == NULL)
        return;
    // NULL joins the streaming threads and stops webrtcbin's and the ICE agent's: no handler
    // runs after this returns.
    G.gst_element_set_state(session->pipeline, GST_STATE_NULL);
    story_release(session);
}
