/// Whether a file's bytes are an animated WebP (RIFF "WEBP" with a "VP8X" header whose
/// animation flag is set, or an "ANIM" chunk). FFmpeg 5.1's WebP decoder reads only still
/// WebP and says "image data not found" of an animated one; a story says what the file is.
enum WebPAnimation {
    static func isAnimated(_ bytes: UnsafeRawBufferPointer) -> Bool {
        func matches(_ text: StaticString, at offset: Int) -> Bool {
            let length = text.utf8CodeUnitCount
            guard offset >= 0, length <= bytes.count - offset else { return false }
            return (0..<length).allSatisfy { bytes[offset + $0] == text.utf8Start[$0] }
        }
        guard matches("RIFF", at: 0), matches("WEBP", at: 8) else { return false }
        // VP8X comes first when present: its first byte's bit 1 is the animation flag.
        if matches("VP8X", at: 12), bytes.count > 20 { return bytes[20] & 0x02 != 0 }
        // Without VP8X an animation is not valid WebP, but look for its chunk all the same.
        var at = 12
        while at + 8 <= bytes.count {
            if matches("ANIM", at: at) || matches("ANMF", at: at) { return true }
            let size = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
            guard size <= bytes.count - at - 8 else { return false }
            at += 8 + size + (size & 1)
        }
        return false
    }
}
