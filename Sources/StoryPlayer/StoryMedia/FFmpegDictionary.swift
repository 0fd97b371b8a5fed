internal import CFFmpeg

/// An `AVDictionary` built from Swift strings, freed with `av_dict_free`.
struct FFmpegDictionary: ~Copyable {
    var pointer: OpaquePointer?

    init(_ entries: [String: String]) {
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            av_dict_set(&pointer, key, value, 0)
        }
    }

    deinit {
        var owned = pointer
        av_dict_free(&owned)
    }
}
