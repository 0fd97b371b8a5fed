/// Whether H.264 or HEVC data carries the parameter sets a decoder needs before any picture (an
/// SPS and a PPS; HEVC's VPS too): a viewer that joins a stream whose publisher sent them only at
/// its start (GStreamer's `h264parse` by default, some hardware encoders) gets slices it can never
/// decode. Telling that apart from a damaged stream lets the failure say what to fix.
///
/// Reads Annex B data (MPEG-TS: start codes) as it comes; length-prefixed data (FLV, MP4) carries
/// its sets in the codec's extradata instead, which the decoder is opened with.
enum VideoParameterSets {
    /// The codecs whose parameter sets this reads, by FFmpeg's codec name.
    static func reads(codec: String) -> Bool { codec == "h264" || codec == "hevc" }

    /// Whether `bytes` (one packet of `codec`, Annex B) holds a sequence parameter set.
    static func found(in bytes: UnsafeRawBufferPointer, codec: String) -> Bool {
        guard bytes.count >= 4 else { return false }
        var zeros = 0
        for index in 0..<(bytes.count - 1) {
            let byte = bytes[index]
            if byte == 0 {
                zeros += 1
                continue
            }
            if byte == 1, zeros >= 2 {
                let header = bytes[index + 1]
                if codec == "h264", header & 0x1F == 7 { return true }
                if codec == "hevc", (header >> 1) & 0x3F == 33 { return true }
            }
            zeros = 0
        }
        return false
    }
}
