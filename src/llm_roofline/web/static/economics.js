// The page's economics view(s): filled in by the views' own code (under construction).
"use strict";
