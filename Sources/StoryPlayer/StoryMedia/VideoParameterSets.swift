/// What H.264 or HEVC data carries of what a decoder needs before any picture: a sequence
/// parameter set, and the keyframe (IDR) a picture is decoded from. A viewer that joins a stream
/// whose publisher sent its parameter sets only at its start (GStreamer's `h264parse` by default,
/// some hardware encoders) gets keyframes it can never decode; one that joined a long GOP has
/// simply not had a keyframe yet. Telling the two apart lets the first fail, saying what to fix,
/// and the second wait.
///
/// Reads Annex B data (MPEG-TS: start codes) as it comes; length-prefixed data (FLV, MP4)
/// carries its sets in the codec's extradata instead, which the decoder is opened with.
enum VideoParameterSets {
    /// What one packet holds.
    struct Found: Equatable {
        var sequenceParameterSet = false
        var keyframe = false
    }

    /// The codecs whose parameter sets this reads, by FFmpeg's codec name.
    static func reads(codec: String) -> Bool { codec == "h264" || codec == "hevc" }

    /// The NAL units of one packet of `codec` (Annex B) that matter here.
    static func scan(_ bytes: UnsafeRawBufferPointer, codec: String) -> Found {
        var found = Found()
        guard bytes.count >= 4 else { return found }
        var zeros = 0
        for index in 0..<(bytes.count - 1) {
            let byte = bytes[index]
            if byte == 0 {
                zeros += 1
                continue
            }
            if byte == 1, zeros >= 2 {
                let header = bytes[index + 1]
                if codec == "h264" {
                    let type = header & 0x1F
                    if type == 7 { found.sequenceParameterSet = true }
                    // An IDR slice, or an intra slice of another picture (a recovery point: how
                    // GStreamer's x264enc sent its keyframes here, none of them IDR).
                    if type == 5 || (type == 1 && isIntraSlice(bytes, from: index + 2)) { found.keyframe = true }
                } else if codec == "hevc" {
                    let type = (header >> 1) & 0x3F
                    if type == 33 { found.sequenceParameterSet = true }
                    if (16...21).contains(type) { found.keyframe = true }
                }
            }
            zeros = 0
        }
        return found
    }

    /// Whether the H.264 slice header starting at `start` (after its NAL header) is of an intra
    /// slice: `first_mb_in_slice` and then `slice_type`, both Exp-Golomb codes, I being 2 or 7.
    private static func isIntraSlice(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Bool {
        var bit = 0
        func next() -> Int? {
            let byte = start + bit / 8
            guard byte < bytes.count else { return nil }
            defer { bit += 1 }
            return Int(bytes[byte] >> (7 - UInt8(bit % 8))) & 1
        }
        func golomb() -> Int? {
            var zeros = 0
            while true {
                guard let b = next() else { return nil }
                if b == 1 { break }
                zeros += 1
                if zeros > 24 { return nil }
            }
            var value = 0
            for _ in 0..<zeros {
                guard let b = next() else { return nil }
                value = value << 1 | b
            }
            return (1 << zeros) - 1 + value
        }
        guard golomb() != nil, let sliceType = golomb() else { return false }
        return sliceType % 5 == 2
    }
}
