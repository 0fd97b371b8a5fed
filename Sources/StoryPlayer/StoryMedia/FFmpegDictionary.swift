internal import CFFmpeg

/// An `AVDictionary` built from Swift strings, freed with `av_dict_free`.
struct FFmpegDictionary: ~Copyable {
    private var pointer: OpaquePointer?

    init(_ entries: [String: String]) {
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            av_dict_set(&pointer, key, value, 0)
        }
    }

    /// Lends the dictionary to the C call that takes options (`avformat_open_input`,
    /// `avio_open2`, `avformat_write_header`) for the length of `body`: the call consumes the
    /// entries it knows and leaves the others, which `deinit` frees.
    mutating func withUnsafeDictionary<R>(_ body: (UnsafeMutablePointer<OpaquePointer?>) -> R) -> R {
        withUnsafeMutablePointer(to: &pointer, body)
    }

    deinit {
        var owned = pointer
        av_dict_free(&owned)
    }
}
