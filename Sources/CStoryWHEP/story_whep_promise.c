// webrtcbin's actions (create-offer, set-*-description, get-stats) are answered through a
// GstPromise on webrtcbin's thread; here they are waited for with a deadline and an interrupt.
#include "story_whep_internal.h"

#include <errno.h>
#include <stdlib.h>

/// What a promise's change function wakes. Two owners: the waiting call and the promise (whose
/// destroy notify drops its reference when the promise is freed, perhaps after the call gave up).
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int changed;
    int references;
} story_waiter;

static void story_waiter_release(gpointer data) {
    story_waiter *waiter = data;
    if (__atomic_sub_fetch(&waiter->references, 1, __ATOMIC_ACQ_REL) == 0) {
        pthread_mutex_destroy(&waiter->lock);
        pthread_cond_destroy(&waiter->cond);
        free(waiter);
    }
}

static void story_promise_changed(GstPromise *promise, gpointer data) {
    (void)promise;
    story_waiter *waiter = data;
    pthread_mutex_lock(&waiter->lock);
    waiter->changed = 1;
    pthread_cond_broadcast(&waiter->cond);
    pthread_mutex_unlock(&waiter->lock);
}

/// A promise and the waiter its change function wakes (NULL when out of memory).
static GstPromise *story_promise_new(story_waiter **waiter) {
    *waiter = calloc(1, sizeof **waiter);
    if (*waiter == NULL)
        return NULL;
    pthread_mutex_init(&(*waiter)->lock, NULL);
    story_cond_init(&(*waiter)->cond);
    (*waiter)->references = 2;
    return G.gst_promise_new_with_change_func(story_promise_changed, *waiter, story_waiter_release);
}

/// Waits until the promise changes or `deadline`; whether it changed.
static int story_waiter_wait(story_waiter *waiter, const struct timespec *deadline) {
    pthread_mutex_lock(&waiter->lock);
    int timed_out = 0;
    while (!waiter->changed && !timed_out)
        timed_out = pthread_cond_timedwait(&waiter->cond, &waiter->lock, deadline) == ETIMEDOUT;
    int changed = waiter->changed;
    pthread_mutex_unlock(&waiter->lock);
    return changed;
}

/// Notes `promise` as the one story_whep_interrupt interrupts; 0, or -1 when the session was
/// interrupted already (the promise is then given up).
static int story_pend(story_whep_session *session, GstPromise *promise, story_waiter *waiter, char *error, size_t capacity) {
    pthread_mutex_lock(&session->lock);
    int interrupted = session->interrupted;
    if (!interrupted)
        session->pending = promise;
    pthread_mutex_unlock(&session->lock);
    if (!interrupted)
        return 0;
    story_copy(error, capacity, "interrupted");
    G.gst_promise_interrupt(promise);
    G.gst_mini_object_unref(GST_MINI_OBJECT_CAST(promise));
    story_waiter_release(waiter);
    return -1;
}

GstPromise *story_call(story_whep_session *session, const char *signal, gpointer argument,
                       const struct timespec *deadline, char *error, size_t capacity) {
    story_waiter *waiter = NULL;
    GstPromise *promise = story_promise_new(&waiter);
    if (waiter == NULL) {
        story_copy(error, capacity, "out of memory");
        return NULL;
    }
    if (story_pend(session, promise, waiter, error, capacity) != 0)
        return NULL;
    G.g_signal_emit_by_name(session->webrtc, signal, argument, promise);
    story_waiter_wait(waiter, deadline);

    // From here story_whep_interrupt no longer sees the promise; whether it interrupted it
    // before is read after, so the promise is interrupted at most once.
    pthread_mutex_lock(&session->lock);
    session->pending = NULL;
    int interrupted = session->interrupted;
    pthread_mutex_unlock(&session->lock);
    int changed = story_waiter_wait(waiter, deadline); // read again, past the deadline: at once

    GstPromiseResult result = changed ? G.gst_promise_wait(promise) : GST_PROMISE_RESULT_PENDING;
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
    G.gst_mini_object_unref(GST_MINI_OBJECT_CAST(promise));
    story_waiter_release(waiter);
    return NULL;
}

int story_reply_error(const GstStructure *reply, char *error, size_t capacity, const char *prefix) {
    if (reply == NULL)
        return 0;
    const GValue *value = G.gst_structure_get_value(reply, "error");
    if (value == NULL)
        return 0;
    const GError *gerror = G.g_value_get_boxed(value); // borrowed: the reply owns it
    story_format(error, capacity, "%s%s", prefix, gerror != NULL && gerror->message != NULL ? gerror->message : "rejected");
    return -1;
}

GstPromise *story_call_stats(story_whep_session *session, const struct timespec *deadline) {
    story_waiter *waiter = NULL;
    GstPromise *promise = story_promise_new(&waiter);
    if (waiter == NULL)
        return NULL;
    G.g_signal_emit_by_name(session->webrtc, "get-stats", NULL, promise);
    int changed = story_waiter_wait(waiter, deadline);
    if (changed && G.gst_promise_wait(promise) == GST_PROMISE_RESULT_REPLIED) {
        story_waiter_release(waiter);
        return promise;
    }
    if (!changed)
        G.gst_promise_interrupt(promise);
    G.gst_mini_object_unref(GST_MINI_OBJECT_CAST(promise));
    story_waiter_release(waiter);
    return NULL;
}
