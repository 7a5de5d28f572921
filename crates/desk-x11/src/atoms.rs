//! The X atoms the desk reads, interned once per connection in one round trip.

x11rb::atom_manager! {
    /// Interned atoms.
    pub Atoms: AtomsCookie {
        UTF8_STRING,
        _SHUTTLE_LENT_KEYCODES,
        WM_PROTOCOLS,
        _NET_CLOSE_WINDOW,
        _NET_WM_PING,
        _NET_CLIENT_LIST,
        _NET_CLIENT_LIST_STACKING,
        _NET_ACTIVE_WINDOW,
        _NET_WM_NAME,
        _NET_WM_PID,
        _NET_WM_STATE,
        _NET_WM_STATE_MODAL,
        _NET_WM_STATE_HIDDEN,
        _NET_WM_STATE_MAXIMIZED_VERT,
        _NET_WM_STATE_MAXIMIZED_HORZ,
        _NET_MOVERESIZE_WINDOW,
        _NET_FRAME_EXTENTS,
        WM_CHANGE_STATE,
        WM_STATE,
        _NET_WM_WINDOW_TYPE,
        _NET_WM_WINDOW_TYPE_NORMAL,
        _NET_WM_WINDOW_TYPE_DIALOG,
        _NET_WM_WINDOW_TYPE_DOCK,
        _NET_WM_WINDOW_TYPE_DESKTOP,
        _NET_WM_WINDOW_TYPE_UTILITY,
        _NET_WM_WINDOW_TYPE_TOOLBAR,
        _NET_WM_WINDOW_TYPE_MENU,
        _NET_WM_WINDOW_TYPE_SPLASH,
        _NET_WM_WINDOW_TYPE_NOTIFICATION,
    }
}
