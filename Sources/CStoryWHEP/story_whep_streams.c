// Each stream webrtcbin adds (pad-added, on its thread) linked through a depayloader bin to the
// muxer: H.264 and Opus to mpegtsmux, VP8 to matroskamux, anything else to a fakesink.
#include "story_whep_internal.h"

#include <stdio.h>
#include <string.h>

/// The first caps on a branch's output: the muxer's pad for it is requested and linked now,
/// before the caps go on, so they reach the muxer ahead of any buffer.
static GstPadProbeReturn story_on_branch_event(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    story_whep_session *session = data;
    GstEvent *event = G.gst_pad_probe_info_get_event(info);
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
    int linked = mux_pad != NULL ? (int)G.gst_pad_link(pad, mux_pad) : -1;
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

/// Notes the bin's output `out` as `track`'s and puts the probes on it. The muxer's pad is asked
/// for when the branch's caps come, not now: mpegtsmux makes every sink pad's stream at its
/// first buffer, and a pad without caps then fails the whole session ("Could not create handler
/// for stream"), which a sound branch whose caps came after the first picture did, now and
/// then. A pad added later is made at its own first buffer.
static void story_watch_branch(story_whep_session *session, GstPad *pad, GstPad *out, const char *mux_pad_template, int track) {
    pthread_mutex_lock(&session->lock);
    session->tracks[track].branch_pad = out; // the session keeps the reference
    session->tracks[track].mux_template = mux_pad_template;
    pthread_mutex_unlock(&session->lock);
    G.gst_pad_add_probe(out, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, story_on_branch_event, session, NULL);
    G.gst_pad_add_probe(out, GST_PAD_PROBE_TYPE_BUFFER, story_on_mux_buffer, session, NULL);
    if (track == 0)
        G.gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, story_on_video_rtp, session, NULL);
}

/// Links `pad` (webrtcbin's, a new stream) to `description`'s bin and that to the muxer's
/// `mux_pad_template` pad (or to nothing: a fakesink description). The bin goes to PLAYING
/// before the pad is linked, so the first buffer finds it ready.
static int story_link_branch(story_whep_session *session, GstPad *pad, const char *description,
                             const char *mux_pad_template, int track, char *error, size_t capacity) {
    GError *parse_error = NULL;
    GstElement *bin = G.gst_parse_bin_from_description(description, TRUE, &parse_error);
    if (bin == NULL || parse_error != NULL) {
        story_take_gerror(parse_error, error, capacity, "cannot build the depayloader: ");
        if (bin != NULL)
            G.gst_object_unref(bin);
        return -1;
    }
    if (!G.gst_bin_add(GST_BIN_CAST(session->pipeline), bin)) {
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
        story_watch_branch(session, pad, out, mux_pad_template, track);
    }
    G.gst_element_sync_state_with_parent(bin);
    GstPad *in = G.gst_element_get_static_pad(bin, "sink");
    int linked = in != NULL ? (int)G.gst_pad_link(pad, in) : -1;
    if (in != NULL)
        G.gst_object_unref(in);
    if (linked != GST_PAD_LINK_OK) {
        story_format(error, capacity, "cannot link webrtcbin's stream to the depayloader (%d)", linked);
        return -1;
    }
    return 0;
}

/// What a new stream is linked to: its depayloader bin's description and the muxer's pad
/// template (NULL and a fakesink for a stream the session does not take).
typedef struct {
    const char *description;
    const char *mux_pad;
} story_branch;

/// The branch for a stream of `media` ("video", "audio") in `encoding`, noted as linked.
/// Called with `lock` held.
static story_branch story_choose_branch_locked(story_whep_session *session, const char *media, const char *encoding, int payload) {
    story_branch branch = {"fakesink sync=false async=false", NULL};
    int ts = session->container == STORY_CONTAINER_TS;
    if (encoding == NULL || media == NULL)
        return branch;
    if (strcmp(media, "video") == 0 && !session->linked_video) {
        if (strcmp(encoding, "H264") == 0 && ts) {
            branch.description = "rtph264depay request-keyframe=true wait-for-keyframe=true ! h264parse config-interval=-1 "
                                 "! capsfilter caps=video/x-h264,stream-format=byte-stream,alignment=au";
            branch.mux_pad = "sink_%d";
        } else if (strcmp(encoding, "VP8") == 0 && session->container == STORY_CONTAINER_MATROSKA) {
            branch.description = "rtpvp8depay request-keyframe=true wait-for-keyframe=true";
            branch.mux_pad = "video_%u";
        }
        if (branch.mux_pad != NULL) {
            session->linked_video = 1;
            session->video_pt = payload;
            snprintf(session->video_codec, sizeof session->video_codec, "%s", encoding);
        }
    } else if (strcmp(media, "audio") == 0 && strcmp(encoding, "OPUS") == 0 && ts && session->want_audio && !session->linked_audio) {
        branch.description = "rtpopusdepay ! opusparse";
        branch.mux_pad = "sink_%d";
        session->linked_audio = 1;
    }
    return branch;
}

void story_on_pad_added(GstElement *webrtc, GstPad *pad, gpointer data) {
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

    pthread_mutex_lock(&session->lock);
    story_branch branch = story_choose_branch_locked(session, media, encoding, payload);
    pthread_mutex_unlock(&session->lock);

    char error[256];
    if (story_link_branch(session, pad, branch.description, branch.mux_pad, video ? 0 : 1, error, sizeof error) != 0) {
        char text[320];
        snprintf(text, sizeof text, "%s stream (%s): %s", video ? "video" : audio ? "sound" : "unknown",
                 encoding != NULL ? encoding : "?", error);
        story_end(session, text);
    }
    if (caps != NULL)
        G.gst_mini_object_unref(GST_MINI_OBJECT_CAST(caps));
}
