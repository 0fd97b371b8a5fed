internal import CHEIF
#if canImport(Glibc)
import Glibc
#endif

/// libheif, opened the first time a photo needs it (`dlopen`, `dlsym`) instead of linked into
/// the program, as `FilterLibrary` opens libavfilter.
///
/// Why: libheif and its HEVC decoder plugin (libde265, whose constructors run at load) cost
/// every process about 7 ms at start, a tenth of its start before the first frame, and most
/// renders show no HEIF photo; a sharded render pays the start once per shard.
///
/// Its functions are the members of `story_heif_functions` (`CHEIF/shim.h`), typed there from
/// libheif's own declarations.
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

    private static func open() -> Result<story_heif_functions, MediaError> {
        // RTLD_LOCAL: its symbols stay out of the program's global scope, so loading it never
        // changes what an already bound call resolves to.
        guard let handle = dlopen(fileName, RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(MediaError(.unsupportedCodec, "cannot load \(fileName) (HEIC, HEIF and AVIF photos)", cause: why))
        }
        // Never closed: the process keeps it, as it would a linked library.
        do throws(MediaError) {
            let heif = story_heif_functions(
                init: try function("heif_init", in: handle),
                get_version: try function("heif_get_version", in: handle),
                have_decoder_for_format: try function("heif_have_decoder_for_format", in: handle),
                context_alloc: try function("heif_context_alloc", in: handle),
                context_free: try function("heif_context_free", in: handle),
                context_read_from_file: try function("heif_context_read_from_file", in: handle),
                context_read_from_memory: try function("heif_context_read_from_memory", in: handle),
                context_get_number_of_top_level_images: try function("heif_context_get_number_of_top_level_images", in: handle),
                context_get_primary_image_handle: try function("heif_context_get_primary_image_handle", in: handle),
                image_handle_release: try function("heif_image_handle_release", in: handle),
                image_handle_get_width: try function("heif_image_handle_get_width", in: handle),
                image_handle_get_height: try function("heif_image_handle_get_height", in: handle),
                image_handle_has_alpha_channel: try function("heif_image_handle_has_alpha_channel", in: handle),
                image_handle_get_luma_bits_per_pixel: try function("heif_image_handle_get_luma_bits_per_pixel", in: handle),
                image_handle_get_nclx_color_profile: try function("heif_image_handle_get_nclx_color_profile", in: handle),
                image_handle_get_color_profile_type: try function("heif_image_handle_get_color_profile_type", in: handle),
                image_handle_get_raw_color_profile_size: try function("heif_image_handle_get_raw_color_profile_size", in: handle),
                image_handle_get_raw_color_profile: try function("heif_image_handle_get_raw_color_profile", in: handle),
                decode_image: try function("heif_decode_image", in: handle),
                image_release: try function("heif_image_release", in: handle),
                image_get_width: try function("heif_image_get_width", in: handle),
                image_get_height: try function("heif_image_get_height", in: handle),
                image_get_colorspace: try function("heif_image_get_colorspace", in: handle),
                image_get_chroma_format: try function("heif_image_get_chroma_format", in: handle),
                image_get_bits_per_pixel_range: try function("heif_image_get_bits_per_pixel_range", in: handle),
                image_get_plane_readonly: try function("heif_image_get_plane_readonly", in: handle),
                image_get_nclx_color_profile: try function("heif_image_get_nclx_color_profile", in: handle),
                nclx_color_profile_free: try function("heif_nclx_color_profile_free", in: handle))
            // Once per process: a libheif built with codec plugins finds them only then.
            _ = heif.`init`(nil)
            return .success(heif)
        } catch {
            return .failure(error)
        }
    }

    /// `dlsym` of `name`, as the function type `F` the header declares it with.
    private static func function<F>(_ name: String, in handle: UnsafeMutableRawPointer) throws(MediaError) -> F {
        guard let address = dlsym(handle, name) else {
            throw MediaError(.unsupportedCodec, "\(fileName) has no \(name)", cause: dlerror().map { String(cString: $0) } ?? "missing")
        }
        return unsafeBitCast(address, to: F.self)
    }
}
