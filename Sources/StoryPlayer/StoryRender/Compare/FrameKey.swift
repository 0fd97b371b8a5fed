import StoryModel

/// A frame's key for pairing by the trace: what it showed, in a 64-bit FNV-1a hash (`FNV1a`).
///
/// Two frames have the same key when they show the same page offset (to 1/10000 of a page),
/// the viewer as open, and on each face the same story, item and kind of picture, the same
/// picture of the media (to the tenth of a millisecond) and the bar as full (to 1/1000). Not
/// the timeline time: a render that shows the same things later pairs them anyway, and its
/// frames before are insertions.
enum FrameKey {
    static func of(_ record: FrameRecord) -> UInt64 {
        var text = "\(rounded(record.page, 10_000)) \(rounded(record.open, 1000))"
        for face in record.faces {
            text += "|\(face.story) \(face.item) \(face.shows)"
            if let time = face.mediaTime { text += " m\(rounded(time, 10_000))" }
            if let bar = face.bar { text += " b\(rounded(bar, 1000))" }
        }
        return FNV1a.hash(text.utf8)
    }

    /// `value` in whole `steps` (so that 0.1 + 0.2 and 0.3 are the same key).
    private static func rounded(_ value: Double, _ steps: Double) -> Int64 { Int64((value * steps).rounded()) }
}
