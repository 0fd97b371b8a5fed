// A session's life: create (the pipeline, the ICE agent, the transceivers, the handlers, then
// PLAYING), read, error, interrupt and close. include/story_whep.h says what each call does.
#include "story_whep_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void story_connect(story_whep_session *session, gpointer instance, const char *signal, GCallback handler) {
    gulong id = G.g_signal_connect_data(instance, signal, handler, session, NULL, 0);
    if (id != 0 && session->handler_count < (int)(sizeof session->handlers / sizeof session->handlers[0])) {
        session->handlers[session->handler_count].instance = instance;
        session->handlers[session->handler_count].id = id;
        session->handler_count++;
    }
}

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
    GstElement *elements[] = {session->rtpbin, session->mux, session->appsink, session->webrtc, session->pipeline};
    for (size_t i = 0; i < sizeof elements / sizeof elements[0]; i++) {
        if (elements[i] != NULL)
            G.gst_object_unref(elements[i]);
    }
    pthread_mutex_destroy(&session->lock);
    pthread_cond_destroy(&session->cond);
    story_whep_certificate_free(&session->certificate);
    free(session->queue);
    free(session);
}

/// The session's memory, lock and certificate; NULL with a message in `error`.
static story_whep_session *story_session_new(const story_whep_options *options, char *error, size_t capacity) {
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
    return session;
}

/// webrtcbin and the appsink, and rtpbin inside webrtcbin.
static int story_build_pipeline(story_whep_session *session, char *error, size_t capacity) {
    char launch[256];
    snprintf(launch, sizeof launch,
             "webrtcbin name=w bundle-policy=max-bundle latency=%d "
             "appsink name=sink sync=false async=false emit-signals=true max-buffers=64",
             session->jitter_latency_ms);
    GError *parse_error = NULL;
    session->pipeline = G.gst_parse_launch(launch, &parse_error);
    if (session->pipeline == NULL || parse_error != NULL) {
        story_take_gerror(parse_error, error, capacity, "cannot build the pipeline: ");
        return -1;
    }
    session->webrtc = G.gst_bin_get_by_name(GST_BIN_CAST(session->pipeline), "w");
    session->appsink = G.gst_bin_get_by_name(GST_BIN_CAST(session->pipeline), "sink");
    session->rtpbin = session->webrtc != NULL ? G.gst_bin_get_by_name(GST_BIN_CAST(session->webrtc), "rtpbin") : NULL;
    if (session->webrtc == NULL || session->appsink == NULL) {
        story_copy(error, capacity, "the pipeline has no webrtcbin or appsink");
        return -1;
    }
    return 0;
}

/// The ICE agent: no UPnP (it would ask the LAN's router to open ports; SSDP multicast), and
/// one local address if asked.
static int story_configure_ice(story_whep_session *session, const char *local_address, char *error, size_t capacity) {
    GObject *ice = NULL;
    G.g_object_get(session->webrtc, "ice-agent", &ice, NULL);
    if (ice == NULL)
        return 0;
    GObject *agent = NULL;
    G.g_object_get(ice, "agent", &agent, NULL);
    if (agent != NULL) {
        G.g_object_set(agent, "upnp", 0, NULL);
        G.g_object_unref(agent);
    }
    int result = 0;
    if (local_address != NULL && local_address[0] != '\0') {
        gboolean added = FALSE;
        G.g_signal_emit_by_name(ice, "add-local-ip-address", local_address, &added);
        if (!added) {
            story_format(error, capacity, "ICE cannot use the local address %s", local_address);
            result = -1;
        }
    }
    G.g_object_unref(ice);
    return result;
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
    G.gst_mini_object_unref(GST_MINI_OBJECT_CAST(caps));
    if (transceiver == NULL) {
        story_format(error, capacity, "webrtcbin refused a transceiver for %s", caps_text);
        return -1;
    }
    G.g_object_set(transceiver, "do-nack", 1, NULL);
    G.g_object_unref(transceiver);
    return 0;
}

/// H.264 (and VP8 after it, if asked and installed), and Opus if asked.
static int story_add_transceivers(story_whep_session *session, int want_vp8, char *error, size_t capacity) {
    char video_caps[512];
    snprintf(video_caps, sizeof video_caps,
             "application/x-rtp,media=video,encoding-name=H264,payload=102,clock-rate=90000,"
             "packetization-mode=(string)1,profile-level-id=(string)42e01f,level-asymmetry-allowed=(string)1%s",
             want_vp8 && story_have_vp8 ? ";application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000" : "");
    if (story_add_transceiver(session, video_caps, error, capacity) != 0)
        return -1;
    if (!session->want_audio)
        return 0;
    return story_add_transceiver(session,
                                 "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000,"
                                 "encoding-params=(string)2,minptime=(string)10,useinbandfec=(string)1",
                                 error, capacity);
}

static void story_connect_handlers(story_whep_session *session) {
    story_connect(session, session->pipeline, "deep-element-added", G_CALLBACK(story_on_deep_element_added));
    story_connect(session, session->webrtc, "pad-added", G_CALLBACK(story_on_pad_added));
    story_connect(session, session->webrtc, "notify::ice-gathering-state", G_CALLBACK(story_on_gathering_state));
    story_connect(session, session->webrtc, "notify::ice-connection-state", G_CALLBACK(story_on_ice_state));
    story_connect(session, session->webrtc, "notify::connection-state", G_CALLBACK(story_on_connection_state));
    story_connect(session, session->appsink, "new-sample", G_CALLBACK(story_on_new_sample));
    story_connect(session, session->appsink, "eos", G_CALLBACK(story_on_sink_eos));
    if (session->rtpbin != NULL)
        story_connect(session, session->rtpbin, "new-jitterbuffer", G_CALLBACK(story_on_new_jitterbuffer));
    session->bus = G.gst_element_get_bus(session->pipeline);
    if (session->bus != NULL) {
        G.gst_bus_set_sync_handler(session->bus, story_bus_sync, NULL, NULL);
        story_connect(session, session->bus, "sync-message::error", G_CALLBACK(story_on_bus_error));
        story_connect(session, session->bus, "sync-message::eos", G_CALLBACK(story_on_bus_eos));
    }
}

static int story_start(story_whep_session *session, char *error, size_t capacity) {
    if (G.gst_element_set_state(session->pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE)
        return 0;
    pthread_mutex_lock(&session->lock);
    story_format(error, capacity, "the pipeline would not start%s%s", session->ended ? ": " : "", session->ended ? session->error : "");
    pthread_mutex_unlock(&session->lock);
    G.gst_element_set_state(session->pipeline, GST_STATE_NULL);
    return -1;
}

story_whep_session *story_whep_create(const story_whep_options *options, char *error, size_t capacity) {
    if (story_whep_load(error, capacity) != 0)
        return NULL;
    story_whep_options defaults = {0, 1, 0, NULL};
    if (options == NULL)
        options = &defaults;
    story_whep_session *session = story_session_new(options, error, capacity);
    if (session == NULL)
        return NULL;
    if (story_build_pipeline(session, error, capacity) != 0 ||
        story_configure_ice(session, options->local_address, error, capacity) != 0 ||
        story_add_transceivers(session, options->want_vp8, error, capacity) != 0) {
        story_release(session);
        return NULL;
    }
    story_connect_handlers(session);
    if (story_start(session, error, capacity) != 0) {
        story_release(session);
        return NULL;
    }
    return session;
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
