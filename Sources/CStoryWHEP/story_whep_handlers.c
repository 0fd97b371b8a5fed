// Signal handlers and bus messages, on GStreamer's threads: the ICE and connection states, the
// muxed bytes queued for the reader, and each stream webrtcbin adds linked to the muxer. Each
// holds the session's lock for a few instructions and wakes waiters through its condition.
#include "story_whep_internal.h"

#include <stdio.h>
#include <string.h>

#define STORY_ICE_FAILED_TEXT \
    "ICE failed: no candidate pair answered the connectivity checks (the server's candidates are unreachable from here)"

void story_end_locked(story_whep_session *session, const char *message) {
    if (!session->ended) {
        session->ended = 1;
        snprintf(session->error, sizeof session->error, "%s", message);
    }
    pthread_cond_broadcast(&session->cond);
}

void story_end(story_whep_session *session, const char *message) {
    pthread_mutex_lock(&session->lock);
    story_end_locked(session, message);
    pthread_mutex_unlock(&session->lock);
}

// MARK: - States

void story_on_gathering_state(GObject *webrtc, GParamSpec *pspec, gpointer data) {
    (void)pspec;
    story_whep_session *session = data;
    GstWebRTCICEGatheringState state = 0;
    G.g_object_get(webrtc, "ice-gathering-state", &state, NULL);
    pthread_mutex_lock(&session->lock);
    session->gathering_state = (int)state;
    pthread_cond_broadcast(&session->cond);
    pthread_mutex_unlock(&session->lock);
}

void story_on_ice_state(GObject *webrtc, GParamSpec *pspec, gpointer data) {
    (void)pspec;
    story_whep_session *session = data;
    GstWebRTCICEConnectionState state = 0;
    G.g_object_get(webrtc, "ice-connection-state", &state, NULL);
    pthread_mutex_lock(&session->lock);
    session->ice_state = (int)state;
    if (state == GST_WEBRTC_ICE_CONNECTION_STATE_FAILED)
        story_end_locked(session, STORY_ICE_FAILED_TEXT);
    else if (state == GST_WEBRTC_ICE_CONNECTION_STATE_CLOSED)
        story_end_locked(session, "ICE closed");
    pthread_cond_broadcast(&session->cond);
    pthread_mutex_unlock(&session->lock);
}

void story_on_connection_state(GObject *webrtc, GParamSpec *pspec, gpointer data) {
    (void)pspec;
    story_whep_session *session = data;
    GstWebRTCPeerConnectionState state = 0;
    G.g_object_get(webrtc, "connection-state", &state, NULL);
    pthread_mutex_lock(&session->lock);
    session->connection_state = (int)state;
    if (state == GST_WEBRTC_PEER_CONNECTION_STATE_FAILED)
        story_end_locked(session, session->ice_state == GST_WEBRTC_ICE_CONNECTION_STATE_FAILED
                                      ? STORY_ICE_FAILED_TEXT
                                      : "WebRTC connection failed (DTLS handshake or ICE)");
    else if (state == GST_WEBRTC_PEER_CONNECTION_STATE_CLOSED)
        story_end_locked(session, "WebRTC connection closed");
    pthread_cond_broadcast(&session->cond);
    pthread_mutex_unlock(&session->lock);
}

// MARK: - The bus

void story_on_bus_error(GstBus *bus, GstMessage *message, gpointer data) {
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

void story_on_bus_eos(GstBus *bus, GstMessage *message, gpointer data) {
    (void)bus;
    (void)message;
    story_end(data, "end of stream");
}

/// Every message is looked at where it is posted, then dropped: no one pops the bus. A sync
/// handler that returns GST_BUS_DROP owns the message and must unref it (gstbus.h); kept, each
/// message would keep its source element, and so the whole pipeline, alive after close.
GstBusSyncReply story_bus_sync(GstBus *bus, GstMessage *message, gpointer data) {
    (void)data;
    G.gst_bus_sync_signal_handler(bus, message, NULL); // emits sync-message::<type>
    G.gst_mini_object_unref(GST_MINI_OBJECT_CAST(message));
    return GST_BUS_DROP;
}

// MARK: - Bytes for the reader

/// Makes room for `size` bytes in the queue. MPEG-TS: whole packets, oldest first, are dropped
/// (the reader's stream keeps its 188-byte phase); Matroska cannot lose bytes and go on, so the
/// session ends. The size that may be queued (0: none). Called with `lock` held.
static size_t story_make_room_locked(story_whep_session *session, size_t size) {
    if (size > STORY_QUEUE_CAPACITY)
        return 0;
    if (session->queue_length + size <= STORY_QUEUE_CAPACITY)
        return size;
    if (session->container != STORY_CONTAINER_TS) {
        story_end_locked(session, "the reader fell 8 MiB behind the stream");
        return 0;
    }
    size_t excess = session->queue_length + size - STORY_QUEUE_CAPACITY;
    size_t drop = (excess + STORY_TS_PACKET - 1) / STORY_TS_PACKET * STORY_TS_PACKET;
    if (drop > session->queue_length)
        drop = session->queue_length;
    session->queue_head = (session->queue_head + drop) % STORY_QUEUE_CAPACITY;
    session->queue_length -= drop;
    session->bytes_dropped += drop;
    return size;
}

GstFlowReturn story_on_new_sample(GstElement *sink, gpointer data) {
    story_whep_session *session = data;
    GstSample *sample = G.gst_app_sink_pull_sample((GstAppSink *)sink);
    if (sample == NULL)
        return GST_FLOW_OK;
    GstBuffer *buffer = G.gst_sample_get_buffer(sample);
    size_t size = buffer != NULL ? G.gst_buffer_get_size(buffer) : 0;
    pthread_mutex_lock(&session->lock);
    size = story_make_room_locked(session, size);
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
    G.gst_mini_object_unref(GST_MINI_OBJECT_CAST(sample));
    return GST_FLOW_OK;
}

void story_on_sink_eos(GstElement *sink, gpointer data) {
    (void)sink;
    story_end(data, "end of stream");
}
