extension WHEPSession {
    /// How long its video packets stay in the jitter buffer (ms), as webrtcbin's stats say now
    /// (`story_whep_status_get`: ask seldom).
    var jitterBufferMs: Double? { figures.jitterDepthMs.rounded() }
}
