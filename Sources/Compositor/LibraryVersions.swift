import CFreeType
import CStoryPNG

/// The versions of the C libraries the drawing runs with, read from them at run time (what
/// `render-stories --version` prints): the ones linked, not the headers built against.
public enum DrawingLibraries {
    /// libpng (`png_get_libpng_ver`).
    public static var libpng: String { String(cString: story_png_libpng_version()) }

    /// FreeType (`FT_Library_Version`).
    public static var freetype: String {
        var major: FT_Int = 0, minor: FT_Int = 0, patch: FT_Int = 0
        story_ft_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }
}
