/* public, in no layer */
