// What GStreamer 1.22 does not do by itself (include/story_whep.h lists them), done from its
// signals and pad probes, on its threads: rtpsession tuned for fast feedback, each DTLS transport
// given the session's ECDSA certificate, gap events for a silent track, and the keyframe watchdog.
#include "story_whep_internal.h"

#include <string.h>

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
void story_on_deep_element_added(GstBin *bin, GstBin *sub_bin, GstElement *element, gpointer data) {
    (void)bin;
    (void)sub_bin;
    story_whep_session *session = data;
    GstElementFactory *factory = G.gst_element_get_factory(element);
    char *name = factory != NULL ? G.gst_object_get_name(GST_OBJECT_CAST(factory)) : NULL; // the factory's name is the element's kind
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
GstPadProbeReturn story_on_mux_buffer(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    story_whep_session *session = data;
    GstBuffer *buffer = G.gst_pad_probe_info_get_buffer(info);
    if (buffer == NULL)
        return GST_PAD_PROBE_OK;
    GstClockTime stamp = GST_BUFFER_DTS_OR_PTS(buffer); // what mpegtsmux orders by
    uint64_t now = story_now_ns();
    GstPad *silent = NULL;
    pthread_mutex_lock(&session->lock);
    int track = session->tracks[0].branch_pad == pad ? 0 : 1;
    int other = 1 - track;
    session->tracks[track].flowing = 1;
    session->tracks[track].last_wall_ns = now;
    if (track == 0)
        session->video_frames_waiting = 0;
    if (session->container == STORY_CONTAINER_TS && stamp != GST_CLOCK_TIME_NONE && session->tracks[other].mux_pad != NULL &&
        session->tracks[other].flowing &&
        now - session->tracks[other].last_wall_ns > (uint64_t)STORY_SILENT_TRACK_MS * 1000000u) {
        silent = G.gst_object_ref(session->tracks[other].mux_pad);
        session->tracks[other].gaps++;
    }
    pthread_mutex_unlock(&session->lock);
    if (silent != NULL) {
        G.gst_pad_send_event(silent, G.gst_event_new_gap(stamp + 1, GST_CLOCK_TIME_NONE));
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
GstPadProbeReturn story_on_video_rtp(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
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

