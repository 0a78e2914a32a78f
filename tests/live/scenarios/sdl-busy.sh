#!/bin/bash
# sdl-busy: an SDL 2 window (python3-pygame, X11 video driver) under Xvfb
# whose key-down handler computes for 3 s on the main thread (key h;
# normal run: key n, 10 ms), so SDL's event loop (SDL_WaitEvent) takes no
# events meanwhile. argus-record has no probe in SDL: the hang is seen in
# the kernel's events only (--proc).
# Truth: fixtures/real/sdl-busy/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
PYGAME_HIDE_SUPPORT_PROMPT=1 $py -c 'import pygame' 2>/dev/null ||
    skip "needs SDL 2 for python (apt-get install python3-pygame)"

# the app: key h computes 3 s, any other key 10 ms; then it writes the
# key's name to the fifo argv[1]
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"sdl-busy-app", 0, 0, 0)  # PR_SET_NAME
import pygame
done = os.open(sys.argv[1], os.O_RDWR)
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from busy import compute  # lib.sh's $WORK/busy.py: computes for SECONDS
pygame.display.init()
screen = pygame.display.set_mode((200, 100))
pygame.display.set_caption("argus-sdl-busy")
screen.fill((255, 255, 255))
pygame.display.flip()
while True:
    event = pygame.event.wait()
    if event.type == pygame.QUIT:
        break
    if event.type == pygame.KEYDOWN:
        name = pygame.key.name(event.key)
        compute(3.0 if name == "h" else 0.01)
        pygame.display.set_caption("argus-sdl-busy")
        os.write(done, (name + "\n").encode())
EOF

key_press_driver
desktop_env
export PYGAME_HIDE_SUPPORT_PROMPT=1 SDL_VIDEODRIVER=x11 SDL_AUDIODRIVER=dummy
# SDL leaves WM_NAME empty: the window is found by its WM_CLASS name
export SDL_VIDEO_X11_WMCLASS=argus-sdl-busy GUI_SEARCH=--classname
start_display
start_gui_app argus-sdl-busy $py "$WORK/app.py" "$FIFO"
app=$APP_PID

record_normal_and_hang
truth proc sdl-busy-app
truth hang "$app sdl-busy-app/main"
truth culprit "$app sdl-busy-app/main"
truth ending running
truth why "the app's key handler computed for 3 s on the main thread, so SDL's event loop did not run"
