// Opening GStreamer: the libraries (dlopen, RTLD_NOW | RTLD_LOCAL), every function of the table
// (dlsym), gst_init, and the elements a session needs. Once per process, under a lock.
// Also the small helpers every file uses (messages, time).
//
// Linked to nothing but libc (glibc 2.34+ has dlopen and pthreads in it).
#define _GNU_SOURCE
#include "story_whep_internal.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>

struct story_gst_functions G;
int story_have_vp8;

static const char *const story_library_files[LIB_COUNT] = {
    "libglib-2.0.so.0", "libgobject-2.0.so.0", "libgstreamer-1.0.so.0",
    "libgstsdp-1.0.so.0", "libgstwebrtc-1.0.so.0", "libgstapp-1.0.so.0",
};

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

void story_copy(char *error, size_t capacity, const char *text) {
    if (error != NULL && capacity > 0)
        snprintf(error, capacity, "%s", text);
}

void story_format(char *error, size_t capacity, const char *format, ...) {
    if (error == NULL || capacity == 0)
        return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, capacity, format, arguments);
    va_end(arguments);
}

void story_take_gerror(GError *error, char *out, size_t capacity, const char *prefix) {
    story_format(out, capacity, "%s%s", prefix, error != NULL && error->message != NULL ? error->message : "unknown error");
    if (error != NULL)
        G.g_error_free(error);
}

uint64_t story_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

struct timespec story_deadline(int timeout_ms) {
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

void story_cond_init(pthread_cond_t *cond) {
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(cond, &attributes);
    pthread_condattr_destroy(&attributes);
}

/// Opens every library and fills `G`. 0, or -1 with story_load_error set.
static int story_open_functions(void) {
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
#define STORY_GST_RESOLVE(library, name) \
    if ((G.name = (__typeof__(G.name))dlsym(handles[library], #name)) == NULL) { \
        story_format(story_load_error, sizeof story_load_error, "%s has no %s: GStreamer 1.20 or later is needed", \
                     story_library_files[library], #name); \
        return -1; \
    }
    STORY_GST_FUNCTIONS(STORY_GST_RESOLVE)
#undef STORY_GST_RESOLVE
    return 0;
}

/// 1 when the element `name` is installed.
static int story_has_element(const char *name) {
    GstElementFactory *factory = G.gst_element_factory_find(name);
    if (factory != NULL)
        G.gst_object_unref(factory);
    return factory != NULL;
}

static int story_load_locked(void) {
    if (story_open_functions() != 0)
        return -1;
    GError *error = NULL;
    if (!G.gst_init_check(NULL, NULL, &error)) {
        story_take_gerror(error, story_load_error, sizeof story_load_error, "gst_init failed: ");
        return -1;
    }
    for (size_t i = 0; i < sizeof story_elements / sizeof story_elements[0]; i++) {
        if (!story_has_element(story_elements[i][0])) {
            story_format(story_load_error, sizeof story_load_error,
                         "%s has no element %s: install %s", G.gst_version_string(),
                         story_elements[i][0], story_elements[i][1]);
            return -1;
        }
    }
    if (story_whep_certificate_load(story_load_error, sizeof story_load_error) != 0)
        return -1;
    story_have_vp8 = story_has_element("rtpvp8depay") && story_has_element("matroskamux");
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
