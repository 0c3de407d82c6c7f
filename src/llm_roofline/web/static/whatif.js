// The page's sensitivity and fast-mode view(s): filled in by the views' own code (under construction).
"use strict";
