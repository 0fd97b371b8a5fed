// The session's figures (story_whep_status_get): the jitter buffer's depth, measured with pad
// probes on each rtpjitterbuffer rtpbin makes, and webrtcbin's get-stats counters.
#include "story_whep_internal.h"

#include <stdio.h>
#include <string.h>

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

static void story_probe_each(story_whep_session *session, GstPadProbeInfo *info, GstPadProbeType type, int arriving) {
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

static GstPadProbeReturn story_probe_in_buffer(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    story_probe_each(data, info, GST_PAD_PROBE_TYPE_BUFFER, 1);
    return GST_PAD_PROBE_OK;
}
static GstPadProbeReturn story_probe_in_list(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    story_probe_each(data, info, GST_PAD_PROBE_TYPE_BUFFER_LIST, 1);
    return GST_PAD_PROBE_OK;
}
static GstPadProbeReturn story_probe_out_buffer(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    story_probe_each(data, info, GST_PAD_PROBE_TYPE_BUFFER, 0);
    return GST_PAD_PROBE_OK;
}
static GstPadProbeReturn story_probe_out_list(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    story_probe_each(data, info, GST_PAD_PROBE_TYPE_BUFFER_LIST, 0);
    return GST_PAD_PROBE_OK;
}

void story_on_new_jitterbuffer(GstElement *rtpbin, GstElement *jitterbuffer, guint session_id, guint ssrc, gpointer data) {
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

/// Reads every `inbound-rtp` structure of a get-stats reply into `status`.
static void story_add_stats(const GstStructure *reply, story_whep_status *status) {
    int fields = reply != NULL ? G.gst_structure_n_fields(reply) : 0;
    for (int i = 0; i < fields; i++) {
        const GValue *value = G.gst_structure_get_value(reply, G.gst_structure_nth_field_name(reply, (guint)i));
        if (value == NULL || !G.g_type_check_value_holds(value, G.gst_structure_get_type()))
            continue;
        const GstStructure *stats = G.gst_value_get_structure(value);
        if (stats != NULL && strcmp(G.gst_structure_get_name(stats), "inbound-rtp") == 0)
            story_add_inbound(stats, status);
    }
}

void story_whep_status_get(story_whep_session *session, story_whep_status *status) {
    memset(status, 0, sizeof *status);
    // Counters first, outside the lock: get-stats is answered on webrtcbin's thread.
    struct timespec deadline = story_deadline(500);
    GstPromise *promise = story_call_stats(session, &deadline);
    if (promise != NULL) {
        story_add_stats(G.gst_promise_get_reply(promise), status);
        G.gst_mini_object_unref(GST_MINI_OBJECT_CAST(promise));
    }
    pthread_mutex_lock(&session->lock);
    if (promise != NULL) {
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
