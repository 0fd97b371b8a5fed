internal import CHEIF
#if canImport(Glibc)
import Glibc
#endif

/// libheif, opened the first time a photo needs it instead of linked into the program, as
/// `FilterLibrary` opens libavfilter.
///
/// Why: libheif and its HEVC decoder plugin (libde265, whose constructors run at load) cost
/// every process about 7 ms at start, a tenth of its start before the first frame, and most
/// renders show no HEIF photo; a sharded render pays the start once per shard.
///
/// Its functions are the members of `story_heif_functions` (`CHEIF/shim.h`, which opens the
/// library and looks each one up under the name its type comes from).
enum HEIFLibrary {
    /// The file the header was written for: its major version is the ABI's.
    static let fileName = "libheif.so.\(story_heif_major_version())"

    /// The library, opened once per process, or why it cannot be (a library that is missing
    /// stays missing while the process runs).
    private static let opened: Result<story_heif_functions, MediaError> = open()

    /// libheif's functions, the library opened on the first call. Throws when it is not
    /// installed or lacks a function, naming the file.
    static func loaded() throws(MediaError) -> story_heif_functions {
        try opened.get()
    }

    /// The libheif in use (`heif_get_version`), e.g. "1.15.1", or why there is none.
    static var version: String {
        switch opened {
        case .success(let heif): heif.get_version().map { String(cString: $0) } ?? "of unknown version"
        case .failure(let error): "not available (\(error.message))"
        }
    }

    /// `story_heif_open` (`dlopen`, `dlsym`), then `heif_init`.
    private static func open() -> Result<story_heif_functions, MediaError> {
        var missing: UnsafePointer<CChar>?
        guard let table = story_heif_open(fileName, &missing) else {
            let what = missing.map { String(cString: $0) } ?? fileName
            guard what == fileName else {
                return .failure(MediaError(.unsupportedCodec, "\(fileName) has no \(what)", cause: "a libheif older than the one built against"))
            }
            let why = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(MediaError(.unsupportedCodec, "cannot load \(fileName) (HEIC, HEIF and AVIF photos)", cause: why))
        }
        let heif = table.pointee
        // Once per process: a libheif built with codec plugins finds them only then.
        _ = heif.`init`(nil)
        return .success(heif)
    }
}
