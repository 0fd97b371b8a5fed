// GStreamer's and GLib's headers, for CStoryWHEP (which includes them itself; no Swift code
// imports this module). The module is here for its include paths, not its libraries:
// gstreamer-headers.pc (beside this file) names GLib's pkg-config modules as private
// requirements, which give their -I flags and none of their -l flags, and GStreamer's own
// include folder, so nothing is linked to GStreamer and CStoryWHEP opens it with dlopen when a
// WHEP source first plays.
#ifndef LIVE_STORIES_CGSTREAMERWEBRTC_SHIM_H
#define LIVE_STORIES_CGSTREAMERWEBRTC_SHIM_H

#define GST_USE_UNSTABLE_API
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/sdp/sdp.h>
#include <gst/webrtc/webrtc.h>

#endif
