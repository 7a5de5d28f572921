//! GNOME Shell 48 (from Debian 13, unpacked beside this Debian 12 machine by
//! scripts/gnome48.sh), where the extension loads as an ES module, Mutter's APIs are 48's and
//! PipeWire is 1.x: the same two scenarios as on 43, a private seat and a person's session set
//! up with `shuttle setup gnome`, each checked to run the tree's Shell.

use crate::gnome::{works_in_the_persons_gnome_session, works_native_apps_on_a_gnome_seat};

/// Where scripts/gnome48.sh put GNOME Shell 48's wrappers.
fn gnome48() -> String {
    std::env::var("SHUTTLE_GNOME48").expect(
        "SHUTTLE_GNOME48 names where GNOME Shell 48 is: run scripts/gnome48.sh (scripts/test.sh does)",
    )
}

#[test]
fn an_agent_works_native_gtk_and_qt_apps_on_a_gnome_48_seat() {
    works_native_apps_on_a_gnome_seat(Some(&gnome48()));
}

#[test]
fn an_agent_works_in_a_persons_gnome_48_session_and_the_person_stops_it_with_the_hotkey() {
    works_in_the_persons_gnome_session(Some(&gnome48()));
}
