use crate::url::Theme;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    pub theme: Theme,
    pub dark: bool,
    pub on_theme: Callback<Theme>,
}

#[function_component(Header)]
pub fn header(p: &HeaderProps) -> Html {
    let next = if p.dark { Theme::Light } else { Theme::Dark };
    let on_theme = p.on_theme.clone();
    let onclick = Callback::from(move |_| on_theme.emit(next));
    html! {
        <header class="top">
            <div class="title">
                <h1><code>{"select_idle_sibling()"}</code>{" visualised"}</h1>
                <p class="lede">
                    {"When a task wakes up, the Linux scheduler looks for an idle CPU near the waker. "}
                    {"Scanning the last-level cache costs time per CPU probed, so the scan is throttled: "}
                    <b>{"SIS_PROP"}</b>{" by the waker's idle time, "}<b>{"SIS_UTIL"}</b>
                    {" by how busy the LLC is. Press play, then step through one decision."}
                </p>
            </div>
            <div class="top-actions">
                <button class="ghost" onclick={onclick} data-testid="theme-toggle"
                    title={format!("Switch to the {} theme (now: {})", next.name(), p.theme.name())}>
                    { if p.dark { "☀ Light" } else { "☾ Dark" } }
                </button>
            </div>
        </header>
    }
}
