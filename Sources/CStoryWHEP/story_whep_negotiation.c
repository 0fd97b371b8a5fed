// The offer and the answer: webrtcbin's create-offer and set-*-description, and the muxer the
// answer's video codec calls for (the caller, Swift's WHEPAnswer, read the answer for it).
#include "story_whep_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/// Non-trickle: the offer goes out with every candidate, so ICE gathering must be complete.
static int story_wait_for_gathering(story_whep_session *session, const struct timespec *deadline, char *error, size_t capacity) {
    pthread_mutex_lock(&session->lock);
    int timed_out = 0;
    while (session->gathering_state != GST_WEBRTC_ICE_GATHERING_STATE_COMPLETE && !session->interrupted && !session->ended && !timed_out)
        timed_out = pthread_cond_timedwait(&session->cond, &session->lock, deadline) == ETIMEDOUT;
    int complete = session->gathering_state == GST_WEBRTC_ICE_GATHERING_STATE_COMPLETE;
    if (!complete)
        story_format(error, capacity, "%s", session->interrupted ? "interrupted"
                                            : session->ended    ? session->error
                                                                : "ICE gathering did not complete in time");
    pthread_mutex_unlock(&session->lock);
    return complete ? 0 : -1;
}

/// create-offer, then set-local-description with it.
static int story_make_offer(story_whep_session *session, const struct timespec *deadline, char *error, size_t capacity) {
    GstPromise *offered = story_call(session, "create-offer", NULL, deadline, error, capacity);
    if (offered == NULL)
        return -1;
    const GstStructure *reply = G.gst_promise_get_reply(offered);
    const GValue *value = reply != NULL ? G.gst_structure_get_value(reply, "offer") : NULL;
    GstWebRTCSessionDescription *offer = value != NULL ? G.g_value_get_boxed(value) : NULL;
    if (offer == NULL) {
        if (story_reply_error(reply, error, capacity, "webrtcbin could not make an offer: ") == 0)
            story_copy(error, capacity, "webrtcbin made no offer");
        G.gst_mini_object_unref(GST_MINI_OBJECT_CAST(offered));
        return -1;
    }
    GstPromise *set = story_call(session, "set-local-description", offer, deadline, error, capacity);
    G.gst_mini_object_unref(GST_MINI_OBJECT_CAST(offered)); // and `offer`, which it owned
    if (set == NULL)
        return -1;
    int rejected = story_reply_error(G.gst_promise_get_reply(set), error, capacity, "webrtcbin refused its own offer: ");
    G.gst_mini_object_unref(GST_MINI_OBJECT_CAST(set));
    return rejected;
}

int story_whep_offer(story_whep_session *session, char **sdp, int timeout_ms, char *error, size_t capacity) {
    *sdp = NULL;
    struct timespec deadline = story_deadline(timeout_ms);
    if (story_make_offer(session, &deadline, error, capacity) != 0 ||
        story_wait_for_gathering(session, &deadline, error, capacity) != 0)
        return -1;
    GstWebRTCSessionDescription *local = NULL;
    G.g_object_get(session->webrtc, "local-description", &local, NULL);
    if (local == NULL) {
        story_copy(error, capacity, "webrtcbin has no local description");
        return -1;
    }
    char *text = G.gst_sdp_message_as_text(local->sdp);
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

/// The muxer, before any stream can arrive (streams arrive after set-remote-description):
/// Matroska for VP8, else MPEG-TS. Once per session.
static int story_add_muxer(story_whep_session *session, const story_whep_answer_video *video, char *error, size_t capacity) {
    if (session->mux != NULL)
        return 0;
    int matroska = video->video_codec == STORY_WHEP_CODEC_VP8;
    GstElement *mux = G.gst_element_factory_make(matroska ? "matroskamux" : "mpegtsmux", NULL);
    if (mux == NULL) {
        story_copy(error, capacity, "cannot make the muxer");
        return -1;
    }
    if (matroska)
        G.g_object_set(mux, "streamable", 1, NULL);
    G.gst_bin_add(GST_BIN_CAST(session->pipeline), mux); // takes the floating reference
    if (!G.gst_element_link(mux, session->appsink)) {
        story_copy(error, capacity, "cannot link the muxer to the appsink");
        return -1;
    }
    G.gst_element_sync_state_with_parent(mux);
    pthread_mutex_lock(&session->lock);
    session->mux = G.gst_object_ref(mux); // the pipeline owns it; the session keeps a reference too
    memcpy(session->video_pts, video->video_payload_types, sizeof session->video_pts);
    session->container = matroska ? STORY_CONTAINER_MATROSKA : STORY_CONTAINER_TS;
    pthread_mutex_unlock(&session->lock);
    return 0;
}

/// Whether the installed plugins take `video`'s codec; -1 with a message if not.
static int story_check_codec(const story_whep_answer_video *video, char *error, size_t capacity) {
    if (video == NULL || (video->video_codec != STORY_WHEP_CODEC_H264 && video->video_codec != STORY_WHEP_CODEC_VP8)) {
        story_copy(error, capacity, "the answer's video codec is neither H.264 nor VP8");
        return -1;
    }
    if (video->video_codec == STORY_WHEP_CODEC_VP8 && !story_have_vp8) {
        story_copy(error, capacity, "the answer picked VP8, and rtpvp8depay or matroskamux is missing (gstreamer1.0-plugins-good)");
        return -1;
    }
    return 0;
}

int story_whep_answer(story_whep_session *session, const char *sdp, const story_whep_answer_video *video,
                      char *error, size_t capacity) {
    if (sdp == NULL || sdp[0] == '\0') {
        story_copy(error, capacity, "the answer is empty");
        return -1;
    }
    if (story_check_codec(video, error, capacity) != 0)
        return -1;
    GstSDPMessage *message = NULL;
    if (G.gst_sdp_message_new(&message) != GST_SDP_OK || message == NULL) {
        story_copy(error, capacity, "out of memory");
        return -1;
    }
    if (G.gst_sdp_message_parse_buffer((const guint8 *)sdp, (guint)strlen(sdp), message) != GST_SDP_OK) {
        G.gst_sdp_message_free(message);
        story_copy(error, capacity, "the answer is not SDP");
        return -1;
    }
    if (story_add_muxer(session, video, error, capacity) != 0) {
        G.gst_sdp_message_free(message);
        return -1;
    }
    GstWebRTCSessionDescription *answer = G.gst_webrtc_session_description_new(GST_WEBRTC_SDP_TYPE_ANSWER, message);
    struct timespec deadline = story_deadline(10000);
    GstPromise *set = story_call(session, "set-remote-description", answer, &deadline, error, capacity);
    G.gst_webrtc_session_description_free(answer); // and `message`
    if (set == NULL)
        return -1;
    int rejected = story_reply_error(G.gst_promise_get_reply(set), error, capacity, "webrtcbin rejected the answer: ");
    G.gst_mini_object_unref(GST_MINI_OBJECT_CAST(set));
    return rejected ? -1 : 0;
}
